// Host-side helpers shared by the built-in algorithms' launch() and supports().
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>

#include <nccl.h>

#include "algo/driver_launch.h"
#include "base/coll_call.h"
#include "transport/p2p/device_comm.h"

namespace flashccl {

class CommView;

constexpr int kKernelThreads = 512;

// Common conditions for every one-node kernel: the communicator has peer memory over all of its
// ranks (not one node's of several), the type is one NCCL has and the count is not zero. Cheap;
// no side effects.
bool peerPathUsable(const CollCall& call, const CommView& ctx);

// Blocks for a packet (LL) kernel moving `packets` 16-byte packets per peer: enough threads for a
// packet each, at most one block per multiprocessor (all blocks resident: no cross-GPU waits on
// unscheduled blocks).
int llGridSize(size_t packets, const DeviceComm& comm);

// Blocks one chunked kernel may use: half of what fits on the GPU. Its blocks wait on each other,
// so it launches cooperatively (all resident or none); and a kernel of ours on one GPU waits for
// the same communicator's kernel on the others. Two communicators used at once from different
// streams (data- and tensor-parallel groups) must both fit, or one GPU could run one's kernel and
// another GPU the other's, each waiting for a kernel its peer cannot start: NCCL keeps its grids
// small for the same reason.
inline int chunkedBlockBudget(const DeviceComm& comm) { return comm.maxResidentBlocks / 2; }

// Lanes and chunk bytes for a chunked kernel that streams `bytesPerLaneUnit` bytes: enough lanes
// to fill the link, each with a few chunks in flight when the message allows.
struct ChunkPlan {
  int lanes;
  size_t chunkBytes;
  size_t rounds;  // chunks (per peer) in the whole message
};
ChunkPlan planChunks(size_t bytes, const DeviceComm& comm, int maxLanes);

// Enqueues `kernel` with one launch call (through the driver, driver_launch.h), kKernelThreads
// threads per block: <<<>>> costs two more runtime calls and a cudaGetLastError after it, on the
// hot path of every intercepted call. The arguments are first converted to the kernel's
// parameter types, so the bytes passed are exactly the parameters'.
template <typename... Params, typename... Actual>
cudaError_t launchKernel(void (*kernel)(Params...), int grid, cudaStream_t stream, Actual&&... actual) {
  static_assert(sizeof...(Params) == sizeof...(Actual), "one argument per kernel parameter");
  std::tuple<std::decay_t<Params>...> values(std::forward<Actual>(actual)...);
  return std::apply(
      [&](auto&... v) {
        void* argv[] = {static_cast<void*>(&v)...};
        return launchThroughDriver(reinterpret_cast<const void*>(kernel), dim3(grid), dim3(kKernelThreads), argv,
                                   stream);
      },
      values);
}

// The same, as a cooperative launch (driver_launch.h): all blocks resident at once. For kernels
// whose blocks wait on each other.
template <typename... Params, typename... Actual>
cudaError_t launchCooperativeKernel(void (*kernel)(Params...), int grid, cudaStream_t stream, Actual&&... actual) {
  static_assert(sizeof...(Params) == sizeof...(Actual), "one argument per kernel parameter");
  std::tuple<std::decay_t<Params>...> values(std::forward<Actual>(actual)...);
  return std::apply(
      [&](auto&... v) {
        void* argv[] = {static_cast<void*>(&v)...};
        return launchCooperative(reinterpret_cast<const void*>(kernel), dim3(grid), dim3(kKernelThreads), argv, stream);
      },
      values);
}

// The result of a launch; WARN names the algorithm on failure (and the error is cleared so it
// does not surface in the application's next CUDA call).
ncclResult_t launchResult(cudaError_t err, const char* algorithm);

// The device-side view of the communicator (its peer memory must exist).
const DeviceComm& deviceComm(const CommView& ctx);

}  // namespace flashccl
