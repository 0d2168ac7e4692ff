// One collective call, as the application made it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>
#include <nccl.h>

namespace flashccl {

enum class CollKind : int { kAllReduce = 0, kAllGather = 1, kReduceScatter = 2 };
constexpr int kNumCollKinds = 3;

const char* collKindName(CollKind kind);   // "allreduce", "allgather", "reducescatter"
const char* collKindTitle(CollKind kind);  // "AllReduce", "AllGather", "ReduceScatter"

struct CollCall {
  CollKind kind;
  const void* send;
  void* recv;
  size_t count;  // as in the API: AllGather sendcount, ReduceScatter recvcount
  ncclDataType_t dtype;
  ncclRedOp_t op;  // ncclSum for AllGather
  int root;        // unused by the three collectives we take; kept for MSCCL reduce/broadcast
  ncclComm_t comm;
  cudaStream_t stream;
};

// Bytes of one element; 0 for a type NCCL does not have. The int32_t forms take values read from
// outside the process, which may be out of the enum's range ("unknown", size 0, never UB).
size_t dtypeSize(ncclDataType_t dtype);
size_t dtypeSize(int32_t dtype);
const char* dtypeName(ncclDataType_t dtype);
const char* dtypeName(int32_t dtype);
const char* redOpName(ncclRedOp_t op);  // "premulsum" for a created one, "unknown" below 0
const char* redOpName(int32_t op);

// Whole-buffer size in bytes as NCCL tools report it: the AllReduce buffer, the gathered
// AllGather output, the ReduceScatter input.
size_t totalBytes(const CollCall& call, int nranks);

// In-place as NCCL defines it for each collective (AllGather: send == recv + rank*count,
// ReduceScatter: send + rank*count == recv).
bool isInPlace(const CollCall& call, int rank);

}  // namespace flashccl
