// The collectives and point-to-point calls flashccl never runs itself, plain and with NCCL 2.32's
// per-call config: forwarded unchanged, after
// the communicator's sequence and error check (runtime/dispatch.h: a communicator whose ranks
// disagreed fails every later call, and every collective call takes a place in its sequence).
#include "runtime/dispatch.h"
#include "shim/forward.h"

using flashccl::ForwardedCall;

using flashccl::TraceKind;

// The body of each export: the runtime's checks and records around the real NCCL's function.
#define FLASHCCL_FORWARD_CALL(call, name, args)                  \
  return flashccl::runForwardedCall(call, [&] {                  \
    ncclResult_t fccl_result_;                                   \
    FLASHCCL_CALL_REAL(fccl_result_, name, args);                \
    return fccl_result_;                                         \
  })

FLASHCCL_EXPORT ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kReduce, comm, count, datatype, op, root, stream}), ncclReduce, (sendbuff, recvbuff, count, datatype, op, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclReduce,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                int root, ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                                       cudaStream_t stream) {
  // NCCL's ncclBcast calls its exported ncclBroadcast, which comes back here as a nested call.
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kBroadcast, comm, count, datatype, ncclSum, root, stream}), ncclBcast, (buff, count, datatype, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclBcast,
               (void* buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kBroadcast, comm, count, datatype, ncclSum, root, stream}), ncclBroadcast, (sendbuff, recvbuff, count, datatype, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclBroadcast,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count,
                                          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kAllToAll, comm, count, datatype, ncclSum, -1, stream}), ncclAlltoAll, (sendbuff, recvbuff, count, datatype, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclAlltoAll,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,
                cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                                        int root, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kGather, comm, count, datatype, ncclSum, root, stream}), ncclGather, (sendbuff, recvbuff, count, datatype, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclGather,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                                         int root, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kScatter, comm, count, datatype, ncclSum, root, stream}), ncclScatter, (sendbuff, recvbuff, count, datatype, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclScatter,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer,
                                      ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kSend, comm, count, datatype, ncclSum, peer, stream}), ncclSend, (sendbuff, count, datatype, peer, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclSend,
               (const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
                                      ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kRecv, comm, count, datatype, ncclSum, peer, stream}), ncclRecv, (recvbuff, count, datatype, peer, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclRecv,
               (void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclReduceConfig(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kReduce, comm, count, datatype, op, root, stream}), ncclReduceConfig, (sendbuff, recvbuff, count, datatype, op, root, comm, stream, config));
}
FLASHCCL_ALIAS(ncclResult_t, ncclReduceConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclBroadcastConfig(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kBroadcast, comm, count, datatype, ncclSum, root, stream}), ncclBroadcastConfig, (sendbuff, recvbuff, count, datatype, root, comm, stream, config));
}
FLASHCCL_ALIAS(ncclResult_t, ncclBroadcastConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclAlltoAllConfig(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kAllToAll, comm, count, datatype, ncclSum, -1, stream}), ncclAlltoAllConfig, (sendbuff, recvbuff, count, datatype, comm, stream, config));
}
FLASHCCL_ALIAS(ncclResult_t, ncclAlltoAllConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclGatherConfig(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kGather, comm, count, datatype, ncclSum, root, stream}), ncclGatherConfig, (sendbuff, recvbuff, count, datatype, root, comm, stream, config));
}
FLASHCCL_ALIAS(ncclResult_t, ncclGatherConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclScatterConfig(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config) {
  FLASHCCL_FORWARD_CALL((ForwardedCall{TraceKind::kScatter, comm, count, datatype, ncclSum, root, stream}), ncclScatterConfig, (sendbuff, recvbuff, count, datatype, root, comm, stream, config));
}
FLASHCCL_ALIAS(ncclResult_t, ncclScatterConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config))
