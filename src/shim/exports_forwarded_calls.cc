// The collectives and point-to-point calls flashccl never runs itself: forwarded unchanged, after
// the communicator's sequence and error check (runtime/dispatch.h: a communicator whose ranks
// disagreed fails every later call, and every collective call takes a place in its sequence).
#include "runtime/dispatch.h"
#include "shim/forward.h"

using flashccl::ForwardedCall;

#define FLASHCCL_BEFORE_FORWARD(...)                                                        \
  do {                                                                                      \
    const ncclResult_t fccl_check_ = flashccl::beforeForwardedCall(ForwardedCall{__VA_ARGS__}); \
    if (fccl_check_ != ncclSuccess) return fccl_check_;                                     \
  } while (0)

FLASHCCL_EXPORT ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_BEFORE_FORWARD("Reduce", comm, count, datatype, op, root, stream, true);
  FLASHCCL_FORWARD(ncclReduce, (sendbuff, recvbuff, count, datatype, op, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclReduce,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                int root, ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                                       cudaStream_t stream) {
  // NCCL's ncclBcast calls its exported ncclBroadcast, which comes back here as a nested call.
  FLASHCCL_BEFORE_FORWARD("Broadcast", comm, count, datatype, ncclSum, root, stream, true);
  FLASHCCL_FORWARD(ncclBcast, (buff, count, datatype, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclBcast,
               (void* buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_BEFORE_FORWARD("Broadcast", comm, count, datatype, ncclSum, root, stream, true);
  FLASHCCL_FORWARD(ncclBroadcast, (sendbuff, recvbuff, count, datatype, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclBroadcast,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count,
                                          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_BEFORE_FORWARD("AlltoAll", comm, count, datatype, ncclSum, -1, stream, true);
  FLASHCCL_FORWARD(ncclAlltoAll, (sendbuff, recvbuff, count, datatype, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclAlltoAll,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,
                cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                                        int root, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_BEFORE_FORWARD("Gather", comm, count, datatype, ncclSum, root, stream, true);
  FLASHCCL_FORWARD(ncclGather, (sendbuff, recvbuff, count, datatype, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclGather,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                                         int root, ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_BEFORE_FORWARD("Scatter", comm, count, datatype, ncclSum, root, stream, true);
  FLASHCCL_FORWARD(ncclScatter, (sendbuff, recvbuff, count, datatype, root, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclScatter,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer,
                                      ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_BEFORE_FORWARD("Send", comm, count, datatype, ncclSum, peer, stream, false);
  FLASHCCL_FORWARD(ncclSend, (sendbuff, count, datatype, peer, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclSend,
               (const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
                                      ncclComm_t comm, cudaStream_t stream) {
  FLASHCCL_BEFORE_FORWARD("Recv", comm, count, datatype, ncclSum, peer, stream, false);
  FLASHCCL_FORWARD(ncclRecv, (recvbuff, count, datatype, peer, comm, stream));
}
FLASHCCL_ALIAS(ncclResult_t, ncclRecv,
               (void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                cudaStream_t stream))
