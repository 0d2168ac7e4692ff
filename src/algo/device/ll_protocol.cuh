// The LL launch protocol shared by the small-message kernels: every launch of a packet kernel on a
// communicator gets the next value of a device-side sequence; packets carry it as their flag and
// go to the half of the slot chosen by its parity. A rank cannot start launch k+2 before every
// peer has finished launch k+1, which needed all our packets of k+1, which peers only send after
// they finished reading launch k: so two halves are enough and nothing is ever cleared.
#pragma once

#include <cstdint>

#include "algo/device/memory_ops.cuh"
#include "transport/p2p/device_comm.h"

namespace flashccl {
namespace dev {

struct LLLaunch {
  uint64_t sequence;
  uint32_t flag;  // never 0, so never matches the zeroed buffer
  int parity;
};

__device__ __forceinline__ LLLaunch beginLL(const DeviceComm& c) {
  const uint64_t seq = *reinterpret_cast<volatile const uint64_t*>(&c.llSequence[0]) + 1;
  return {seq, static_cast<uint32_t>(seq % 0xffffffffull) + 1u, static_cast<int>(seq & 1)};
}

// The last block to finish publishes the new sequence: every block read the old one first.
__device__ __forceinline__ void endLL(const DeviceComm& c, const LLLaunch& launch) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    unsigned long long* done = reinterpret_cast<unsigned long long*>(&c.llSequence[1]);
    if (atomicAdd(done, 1ull) == gridDim.x - 1) {
      c.llSequence[1] = 0;
      c.llSequence[0] = launch.sequence;
    }
  }
}

__device__ __forceinline__ char* llPeerSlot(const DeviceComm& c, int peer, int parity) {
  return c.buffers[peer] + llSlotOffset(c.layout, peerIndex(peer, c.rank, c.nranks), parity);
}

__device__ __forceinline__ const char* llLocalSlot(const DeviceComm& c, int source, int parity) {
  return c.buffers[c.rank] + llSlotOffset(c.layout, peerIndex(c.rank, source, c.nranks), parity);
}

__device__ __forceinline__ int bytesInPack(size_t total, size_t offset, int packBytes) {
  return total - offset < static_cast<size_t>(packBytes) ? static_cast<int>(total - offset) : packBytes;
}

}  // namespace dev
}  // namespace flashccl
