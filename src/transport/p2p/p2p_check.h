// The one real transfer that proves peer access works (the driver can report P2P that does not):
// every rank writes a pattern into every peer's buffer with SM stores (the way our kernels will),
// and each rank later checks what arrived.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "transport/p2p/device_comm.h"

namespace flashccl {

// Bytes at the start of each buffer used by the check (then zeroed again).
constexpr size_t kP2pCheckBytes = kMaxPeerRanks * 16;

// The 16-byte pattern rank `source` writes into rank `target`'s buffer.
uint64_t p2pCheckPattern(int source, int target, int word);

// Enqueues the writes on `stream`.
cudaError_t launchP2pCheckWrites(const DeviceComm& comm, cudaStream_t stream);

}  // namespace flashccl
