// Where the small-message kernels' LL packets go. Every launch of a communicator's kernels has a
// number (launch_protocol.cuh); packets carry its flag and go to the half of the slot chosen by
// its parity. A rank cannot start launch k+2 before every peer has finished launch k+1, which
// needed all our data of k+1, which peers only send after they finished reading launch k: so two
// halves are enough, and a slot is only cleared by the periodic sweep that keeps 32-bit flags
// from coming round again.
#pragma once

#include <cstdint>

#include "algo/device/launch_protocol.cuh"
#include "algo/device/memory_ops.cuh"
#include "transport/p2p/device_comm.h"

namespace flashccl {
namespace dev {

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
