/* A stand-in for libnccl.so.2 with no GPU behind it, for CPU tests of the shim's lifecycle logic.
 *
 * It models what the shim depends on: blocking and non-blocking init (ncclInProgress until polled
 * through ncclCommGetAsyncError), comms created inside a group becoming usable only at the
 * outermost ncclGroupEnd, ncclCommCount & co. refusing a comm that is not ready, and a call into
 * one of its own exports through the PLT (ncclBcast -> ncclAllReduce), as NCCL does. It leaves
 * out ncclCommRevoke, ncclCommShrink and the device-API helpers, like an older NCCL would.
 * FAKE_NCCL_VERSION sets the version it reports (default 22803). */
#include <stdlib.h>
#include <string.h>

#include <nccl.h>

#define FAKE_API(ret, name, ...)                                          \
  ret name(__VA_ARGS__) __attribute__((weak, visibility("default")));    \
  ret p##name(__VA_ARGS__) __attribute__((alias(#name), visibility("default")))

struct ncclComm {
  int nranks, rank, dev, blocking, pollsLeft;
  ncclResult_t async;
};

static int groupDepth = 0;
static struct ncclComm* pendingInGroup[16];
static int nPendingInGroup = 0;
static int allReduceCalls = 0, allGatherCalls = 0, reduceScatterCalls = 0, bcastCalls = 0;

__attribute__((visibility("default"))) int fakeNcclCalls(const char* name) {
  if (!strcmp(name, "ncclAllReduce")) return allReduceCalls;
  if (!strcmp(name, "ncclAllGather")) return allGatherCalls;
  if (!strcmp(name, "ncclReduceScatter")) return reduceScatterCalls;
  if (!strcmp(name, "ncclBcast")) return bcastCalls;
  return -1;
}

static int ready(ncclComm_t comm) { return comm && comm->async == ncclSuccess; }

static ncclComm_t newComm(int nranks, int rank, int blocking) {
  struct ncclComm* comm = calloc(1, sizeof(*comm));
  comm->nranks = nranks;
  comm->rank = rank;
  comm->dev = rank;
  comm->blocking = blocking;
  comm->pollsLeft = blocking ? 0 : 1;
  comm->async = ncclSuccess;
  if (!blocking || groupDepth > 0) comm->async = ncclInProgress;
  if (groupDepth > 0 && nPendingInGroup < 16) pendingInGroup[nPendingInGroup++] = comm;
  return comm;
}

FAKE_API(ncclResult_t, ncclGetVersion, int* version);
ncclResult_t ncclGetVersion(int* version) {
  const char* env = getenv("FAKE_NCCL_VERSION");
  *version = env ? atoi(env) : 22803;
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclGetUniqueId, ncclUniqueId* id);
ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  memset(id, 0x5a, sizeof(*id));
  return ncclSuccess;
}

FAKE_API(const char*, ncclGetErrorString, ncclResult_t result);
const char* ncclGetErrorString(ncclResult_t result) { return "fake nccl error string"; }

FAKE_API(const char*, ncclGetLastError, ncclComm_t comm);
const char* ncclGetLastError(ncclComm_t comm) { return "fake nccl last error"; }

FAKE_API(ncclResult_t, ncclCommInitRank, ncclComm_t* comm, int nranks, ncclUniqueId id, int rank);
ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  if (nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  *comm = newComm(nranks, rank, 1);
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclCommInitRankConfig, ncclComm_t* comm, int nranks, ncclUniqueId id,
         int rank, ncclConfig_t* config);
ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t* config) {
  int blocking = !(config && config->blocking == 0);
  if (nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  *comm = newComm(nranks, rank, blocking);
  return blocking ? ncclSuccess : ncclInProgress;
}

FAKE_API(ncclResult_t, ncclCommInitAll, ncclComm_t* comms, int ndev, const int* devlist);
ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  for (int i = 0; i < ndev; ++i) {
    comms[i] = newComm(ndev, i, 1);
    comms[i]->dev = devlist ? devlist[i] : i;
  }
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclCommSplit, ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
         ncclConfig_t* config);
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
                           ncclConfig_t* config) {
  if (!ready(comm)) return ncclInvalidArgument;
  if (color == NCCL_SPLIT_NOCOLOR) {
    *newcomm = NULL;
    return ncclSuccess;
  }
  int blocking = config ? config->blocking != 0 : comm->blocking;
  *newcomm = newComm(1, 0, blocking);
  return blocking ? ncclSuccess : ncclInProgress;
}

FAKE_API(ncclResult_t, ncclCommFinalize, ncclComm_t comm);
ncclResult_t ncclCommFinalize(ncclComm_t comm) { return comm ? ncclSuccess : ncclInvalidArgument; }

FAKE_API(ncclResult_t, ncclCommDestroy, ncclComm_t comm);
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm) return ncclInvalidArgument;
  free(comm);
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclCommAbort, ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm) return ncclInvalidArgument;
  free(comm);
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclCommGetAsyncError, ncclComm_t comm, ncclResult_t* async);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* async) {
  if (!comm) return ncclInvalidArgument;
  if (comm->async == ncclInProgress && !comm->blocking && groupDepth == 0 &&
      comm->pollsLeft-- <= 0) {
    comm->async = ncclSuccess;
  }
  *async = comm->async;
  return ncclSuccess;
}

#define FAKE_QUERY(name, field)                                 \
  FAKE_API(ncclResult_t, name, const ncclComm_t comm, int* out); \
  ncclResult_t name(const ncclComm_t comm, int* out) {          \
    if (!ready(comm)) return ncclInvalidArgument;               \
    *out = comm->field;                                         \
    return ncclSuccess;                                         \
  }
FAKE_QUERY(ncclCommCount, nranks)
FAKE_QUERY(ncclCommUserRank, rank)
FAKE_QUERY(ncclCommCuDevice, dev)

FAKE_API(ncclResult_t, ncclGroupStart, void);
ncclResult_t ncclGroupStart(void) {
  ++groupDepth;
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclGroupEnd, void);
ncclResult_t ncclGroupEnd(void) {
  if (groupDepth == 0) return ncclInvalidUsage;
  if (--groupDepth > 0) return ncclSuccess;
  int inProgress = 0;
  for (int i = 0; i < nPendingInGroup; ++i) {
    if (pendingInGroup[i]->blocking) pendingInGroup[i]->async = ncclSuccess;
    else inProgress = 1;
  }
  nPendingInGroup = 0;
  return inProgress ? ncclInProgress : ncclSuccess;
}

FAKE_API(ncclResult_t, ncclAllReduce, const void* sendbuff, void* recvbuff, size_t count,
         ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
  if (!ready(comm)) return ncclInvalidArgument;
  ++allReduceCalls;
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclAllGather, const void* sendbuff, void* recvbuff, size_t sendcount,
         ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
  if (!ready(comm)) return ncclInvalidArgument;
  ++allGatherCalls;
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclReduceScatter, const void* sendbuff, void* recvbuff, size_t recvcount,
         ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream) {
  if (!ready(comm)) return ncclInvalidArgument;
  ++reduceScatterCalls;
  return ncclSuccess;
}

/* NCCL implements some exports with others, called through the PLT; a preloaded shim sees those
 * calls too. This one is deliberately an AllReduce, a collective the shim intercepts. */
FAKE_API(ncclResult_t, ncclBcast, void* buff, size_t count, ncclDataType_t datatype, int root,
         ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root,
                       ncclComm_t comm, cudaStream_t stream) {
  ++bcastCalls;
  return ncclAllReduce(buff, buff, count, datatype, ncclSum, comm, stream);
}

FAKE_API(ncclResult_t, ncclRedOpCreatePreMulSum, ncclRedOp_t* op, void* scalar,
         ncclDataType_t datatype, ncclScalarResidence_t residence, ncclComm_t comm);
ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm) {
  if (!ready(comm)) return ncclInvalidArgument;
  *op = (ncclRedOp_t)ncclNumOps;
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclRedOpDestroy, ncclRedOp_t op, ncclComm_t comm);
ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  return ready(comm) ? ncclSuccess : ncclInvalidArgument;
}
