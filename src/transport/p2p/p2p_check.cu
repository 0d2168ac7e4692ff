#include "transport/p2p/p2p_check.h"

namespace flashccl {

namespace {

__host__ __device__ uint64_t pattern(int source, int target, int word) {
  return 0x5eed0000f1a5cc1ull ^ (static_cast<uint64_t>(source + 1) << 40) ^
         (static_cast<uint64_t>(target + 1) << 20) ^ static_cast<uint64_t>(word + 1);
}

__global__ void p2pCheckWriteKernel(DeviceComm comm) {
  const int target = threadIdx.x;
  if (target >= comm.nranks || target == comm.rank) return;
  uint64_t* slot = reinterpret_cast<uint64_t*>(comm.buffers[target] + comm.rank * 16);
  slot[0] = pattern(comm.rank, target, 0);
  slot[1] = pattern(comm.rank, target, 1);
  __threadfence_system();
}

}  // namespace

uint64_t p2pCheckPattern(int source, int target, int word) { return pattern(source, target, word); }

cudaError_t launchP2pCheckWrites(const DeviceComm& comm, cudaStream_t stream) {
  p2pCheckWriteKernel<<<1, kMaxPeerRanks, 0, stream>>>(comm);
  return cudaGetLastError();
}

}  // namespace flashccl
