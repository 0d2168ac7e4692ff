// Host-side helpers shared by the built-in algorithms' launch() and supports().
#pragma once

#include <cstddef>

#include <nccl.h>

#include "core/coll_call.h"

namespace flashccl {

class CommContext;
struct DeviceComm;

constexpr int kKernelThreads = 512;

// Common conditions for every built-in kernel: the communicator has peer memory, the type is one
// NCCL has and the count is not zero. Cheap; no side effects.
bool peerPathUsable(const CollCall& call, const CommContext& ctx);

// Blocks for a packet (LL) kernel moving `packets` 16-byte packets per peer: enough threads for a
// packet each, at most one block per multiprocessor (all blocks resident: no cross-GPU waits on
// unscheduled blocks).
int llGridSize(size_t packets, const CommContext& ctx);

// Lanes and chunk bytes for a chunked kernel that streams `bytesPerLaneUnit` bytes: enough lanes
// to fill the link, each with a few chunks in flight when the message allows.
struct ChunkPlan {
  int lanes;
  size_t chunkBytes;
  size_t rounds;  // chunks (per peer) in the whole message
};
ChunkPlan planChunks(size_t bytes, const DeviceComm& comm, int maxLanes);

// Checks the launch that was just enqueued; WARN names the algorithm on failure.
ncclResult_t checkLaunch(const char* algorithm);

// The device-side view of the communicator (its peer memory must exist).
const DeviceComm& deviceComm(const CommContext& ctx);

}  // namespace flashccl
