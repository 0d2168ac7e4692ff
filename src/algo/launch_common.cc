#include "algo/launch_common.h"

#include <algorithm>

#include <cuda_runtime_api.h>

#include "base/check.h"
#include "algo/comm_view.h"
#include "base/config.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

bool peerPathUsable(const CollCall& call, const CommView& ctx) {
  // On a communicator across nodes the peer memory holds one node's ranks: the one-node kernels
  // would leave the other nodes out.
  return ctx.peers() != nullptr && call.count > 0 && dtypeSize(call.dtype) != 0 &&
         ctx.nranks >= 2 && ctx.nranks <= kMaxPeerRanks && ctx.peers()->device().nranks == ctx.nranks;
}


int llGridSize(size_t packets, const DeviceComm& comm) {
  const size_t wanted = (packets + kKernelThreads - 1) / kKernelThreads;
  const size_t cap = static_cast<size_t>(std::max(1, comm.smCount));
  return static_cast<int>(std::max<size_t>(1, std::min(wanted, cap)));
}

ChunkPlan planChunks(size_t bytes, const DeviceComm& comm, int maxLanes) {
  // Four chunks per lane keep a lane's pipeline busy (fill one slot while the peer drains
  // another); below that, fewer lanes with chunks no smaller than the minimum, because a chunk
  // costs a flag round trip (~1 us over NVLink) whatever its size.
  constexpr size_t kChunksPerLane = 4;
  const size_t minChunk = std::min(Config::get().minChunkBytes, comm.layout.chunkBytes);
  const size_t lanesForSize = std::max<size_t>(1, (bytes + minChunk - 1) / minChunk);
  maxLanes = std::min(maxLanes, Config::get().lanes);
  ChunkPlan plan;
  plan.lanes = static_cast<int>(std::min<size_t>({lanesForSize, static_cast<size_t>(maxLanes),
                                                   static_cast<size_t>(comm.layout.lanes)}));
  plan.lanes = std::max(1, plan.lanes);
  size_t chunk = (bytes + plan.lanes * kChunksPerLane - 1) / (plan.lanes * kChunksPerLane);
  chunk = (chunk + 15) / 16 * 16;
  plan.chunkBytes = std::min(std::max(chunk, minChunk), comm.layout.chunkBytes);
  plan.rounds = std::max<size_t>(1, (bytes + plan.chunkBytes - 1) / plan.chunkBytes);
  plan.lanes = static_cast<int>(std::min<size_t>(plan.lanes, plan.rounds));
  return plan;
}

ncclResult_t launchResult(cudaError_t err, const char* algorithm) {
  if (err == cudaSuccess) return ncclSuccess;
  cudaGetLastError();
  FCCL_WARN("%s: kernel launch failed: %s (%d)", algorithm, cudaGetErrorString(err), (int)err);
  return ncclUnhandledCudaError;
}

const DeviceComm& deviceComm(const CommView& ctx) { return ctx.peers()->device(); }

}  // namespace flashccl
