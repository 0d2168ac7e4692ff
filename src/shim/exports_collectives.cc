// The three collectives flashccl may run itself, plain and with NCCL 2.32's per-call config (run
// exactly as the plain call when the config asks nothing flashccl cannot honour,
// runtime/coll_config.h); everything else is in exports_forwarded.cc.
#include "runtime/dispatch.h"
#include "shim/forward.h"

using flashccl::CollCall;
using flashccl::CollKind;

FLASHCCL_EXPORT ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                           ncclDataType_t datatype, ncclRedOp_t op,
                                           ncclComm_t comm, cudaStream_t stream) {
  return flashccl::dispatchCollective(
      CollCall{CollKind::kAllReduce, sendbuff, recvbuff, count, datatype, op, 0, comm, stream});
}
FLASHCCL_ALIAS(ncclResult_t, ncclAllReduce,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                           ncclDataType_t datatype, ncclComm_t comm,
                                           cudaStream_t stream) {
  return flashccl::dispatchCollective(CollCall{CollKind::kAllGather, sendbuff, recvbuff, sendcount,
                                               datatype, ncclSum, 0, comm, stream});
}
FLASHCCL_ALIAS(ncclResult_t, ncclAllGather,
               (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff,
                                               size_t recvcount, ncclDataType_t datatype,
                                               ncclRedOp_t op, ncclComm_t comm,
                                               cudaStream_t stream) {
  return flashccl::dispatchCollective(CollCall{CollKind::kReduceScatter, sendbuff, recvbuff,
                                               recvcount, datatype, op, 0, comm, stream});
}
FLASHCCL_ALIAS(ncclResult_t, ncclReduceScatter,
               (const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,
                ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))

FLASHCCL_EXPORT ncclResult_t ncclAllReduceConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                 ncclDataType_t datatype, ncclRedOp_t op,
                                                 ncclComm_t comm, cudaStream_t stream,
                                                 const ncclCollConfig_t* config) {
  return flashccl::dispatchCollective(CollCall{CollKind::kAllReduce, sendbuff, recvbuff, count,
                                               datatype, op, 0, comm, stream}, config);
}
FLASHCCL_ALIAS(ncclResult_t, ncclAllReduceConfig,
               (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream,
                const ncclCollConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclAllGatherConfig(const void* sendbuff, void* recvbuff,
                                                 size_t sendcount, ncclDataType_t datatype,
                                                 ncclComm_t comm, cudaStream_t stream,
                                                 const ncclCollConfig_t* config) {
  return flashccl::dispatchCollective(CollCall{CollKind::kAllGather, sendbuff, recvbuff, sendcount,
                                               datatype, ncclSum, 0, comm, stream}, config);
}
FLASHCCL_ALIAS(ncclResult_t, ncclAllGatherConfig,
               (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclReduceScatterConfig(const void* sendbuff, void* recvbuff,
                                                     size_t recvcount, ncclDataType_t datatype,
                                                     ncclRedOp_t op, ncclComm_t comm,
                                                     cudaStream_t stream,
                                                     const ncclCollConfig_t* config) {
  return flashccl::dispatchCollective(CollCall{CollKind::kReduceScatter, sendbuff, recvbuff,
                                               recvcount, datatype, op, 0, comm, stream}, config);
}
FLASHCCL_ALIAS(ncclResult_t, ncclReduceScatterConfig,
               (const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,
                ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream,
                const ncclCollConfig_t* config))
