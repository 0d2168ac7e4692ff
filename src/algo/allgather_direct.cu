// AllGather direct: every rank pushes its input to every peer over NVLink; each rank copies what
// arrives into its output. Small inputs travel as LL packets (one kernel, one trip); larger ones
// stream through the chunk slots with a sender role (one read of the input, n-1 remote stores and
// the local copy) and a receiver role (slot -> output), pipelined per lane.
// The kernels take NodeBlocks (node_blocks.h): whole blocks here, windows of several groups in
// the all-gather phase of the algorithms across nodes (node_phases.h).
#include <algorithm>

#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/comm_view.h"
#include "algo/device/chunk_pipeline.cuh"
#include "algo/device/ll_protocol.cuh"
#include "algo/launch_common.h"
#include "algo/node_phases.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

using namespace dev;

__global__ void __launch_bounds__(kKernelThreads)
    allgatherLLKernel(DeviceComm comm, const char* in, char* out, NodeBlocks blocks) {
  const Launch launch = beginLaunch(comm);
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;

  // What every peer finds in its slot from us: our window of every group, one after another.
  const size_t len = windowBytes(blocks, comm.rank);
  const size_t npackets = (len + 7) / 8;
  for (int g = 0; g < blocks.groups; ++g) {
    const char* src = in + g * blocks.ownGroupStride;
    char* ownShard = out + windowOffset(blocks, g, comm.rank);
    const bool inPlace = src == ownShard;
    const bool inAligned = isAligned(src, 8);
    const bool ownAligned = isAligned(ownShard, 8);
    const size_t slotBase = static_cast<size_t>(g) * npackets * 16;
    for (size_t p = first; p < npackets; p += step) {
      const int nbytes = bytesInPack(len, p * 8, 8);
      const uint64_t v = load8(src + p * 8, nbytes, inAligned);
      for (int d = 1; d < comm.nranks; ++d) {
        const int peer = (comm.rank + d) % comm.nranks;
        llStore(llPeerSlot(comm, peer, launch.parity) + slotBase + p * 16, v, launch.flag);
      }
      if (!inPlace) store8(ownShard + p * 8, v, nbytes, ownAligned);
    }
  }

  bool ok = peersAgree(comm, launch);
  for (int d = 1; d < comm.nranks && ok; ++d) {
    const int source = (comm.rank + comm.nranks - d) % comm.nranks;
    const size_t sourceLen = windowBytes(blocks, source);
    const size_t sourcePackets = (sourceLen + 7) / 8;
    const char* slot = llLocalSlot(comm, source, launch.parity);
    for (int g = 0; g < blocks.groups && ok; ++g) {
      char* shard = out + windowOffset(blocks, g, source);
      const bool aligned = isAligned(shard, 8);
      const char* groupSlot = slot + static_cast<size_t>(g) * sourcePackets * 16;
      for (size_t p = first; p < sourcePackets && ok; p += step) {
        uint64_t v;
        ok = llLoad(groupSlot + p * 16, launch.flag, comm, &v);
        if (ok) store8(shard + p * 8, v, bytesInPack(sourceLen, p * 8, 8), aligned);
      }
    }
  }
  if (!ok) reportAbort(comm, launch);
  endLaunch(comm, launch);
}

// Role 0: senders; role 1: receivers (DirectLane). Work items are (group, chunk of the window),
// taken by the lanes in turn.
template <int kRanks>
__global__ void __launch_bounds__(kKernelThreads, 2)
    allgatherChunkedKernel(const __grid_constant__ DeviceComm comm, const char* in, char* out, const NodeBlocks blocks,
                           size_t chunkBytes, size_t rounds) {
  const Launch launch = beginLaunch(comm);
  DirectLane<kRanks> d(comm);
  const size_t items = static_cast<size_t>(blocks.groups) * rounds;
  const size_t ownLen = windowBytes(blocks, comm.rank);
  bool ok = peersAgree(comm, launch);
  for (size_t item = d.lane.lane; item < items && ok; item += d.lanes) {
    const int g = static_cast<int>(item / rounds);
    const size_t offset = (item % rounds) * chunkBytes;
    if (d.role == 0) {
      ok = waitSlotsFree(d.lane, d.peers, d.npeers, d.chunk);
      if (!ok) break;
      const char* src = in + g * blocks.ownGroupStride;
      char* ownShard = out + windowOffset(blocks, g, comm.rank);
      char* dsts[kMaxPeerRanks + 1];
      int ndst = 0;
      for (int i = 0; i < d.npeers; ++i) dsts[ndst++] = peerSlot(d.lane, d.peers[i], d.chunk[i]);
      if (src != ownShard) dsts[ndst++] = ownShard + offset;
      copyChunk(src + offset, false, dsts, ndst, chunkBytesAt(ownLen, offset, chunkBytes));
      publishChunks(d.lane, d.peers, d.npeers, d.chunk);
    } else {
      ok = waitChunksReady(d.lane, d.peers, d.npeers, d.chunk);
      if (!ok) break;
      for (int i = 0; i < d.npeers; ++i) {
        const int peer = d.peers[i];
        char* dst = out + windowOffset(blocks, g, peer) + offset;
        copyChunk<1>(localSlot(d.lane, peer, d.chunk[i]), true, &dst, 1,
                     chunkBytesAt(windowBytes(blocks, peer), offset, chunkBytes));
      }
      ackChunks(d.lane, d.peers, d.npeers, d.chunk);
    }
    d.advance();
  }
  d.finish(ok);
  if (!ok) reportAbort(comm, launch);
  endLaunch(comm, launch);
}

class AllgatherDirect final : public Algorithm {
 public:
  const char* name() const override { return "allgather_direct"; }
  CollKind kind() const override { return CollKind::kAllGather; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    return call.kind == CollKind::kAllGather && peerPathUsable(call, ctx);
  }

  bool usesChunkSlots(const CollCall& call, const CommView& ctx) const override {
    const DeviceComm& comm = deviceComm(ctx);
    return !phaseUsesPackets(wholeBlocks(call.count * dtypeSize(call.dtype), comm.nranks), comm);
  }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    const DeviceComm& comm = deviceComm(ctx);
    const size_t bytes = call.count * dtypeSize(call.dtype);
    return launchResult(launchNodeAllGather(comm, wholeBlocks(bytes, comm.nranks), static_cast<const char*>(call.send),
                                            static_cast<char*>(call.recv), directKernelLanes(comm), call.stream),
                        name());
  }
};

}  // namespace

cudaError_t launchNodeAllGather(const DeviceComm& comm, const NodeBlocks& blocks, const char* in, char* out,
                                int maxLanes, cudaStream_t stream) {
  const size_t groups = static_cast<size_t>(blocks.groups);
  if (phaseUsesPackets(blocks, comm)) {
    return launchKernel(allgatherLLKernel, llGridSize(groups * ((blocks.bytes + 7) / 8), comm), stream, comm, in, out,
                        blocks);
  }
  const ChunkPlan plan = planChunks(groups * blocks.bytes, comm, maxLanes);
  const size_t rounds = std::max<size_t>(1, (blocks.bytes + plan.chunkBytes - 1) / plan.chunkBytes);
  const int lanes = static_cast<int>(std::min<size_t>(groups * rounds, static_cast<size_t>(plan.lanes)));
  auto kernel = comm.nranks == 2 ? allgatherChunkedKernel<2> : allgatherChunkedKernel<0>;
  return launchCooperativeKernel(kernel, 2 * lanes, stream, comm, in, out, blocks, plan.chunkBytes, rounds);
}

Algorithm* allgatherDirectAlgorithm() {
  static AllgatherDirect algorithm;
  return &algorithm;
}

}  // namespace flashccl
