// ReduceScatter direct: every rank pushes shard q of its input to rank q; each rank folds the
// contributions to its own shard in rank order. Small shards travel as LL packets; larger ones
// stream through chunk slots with a sender role and a reducer role, pipelined per lane.
// The kernels take NodeBlocks (node_blocks.h): whole blocks here, windows of several groups in
// the reduce-scatter phase of the algorithms across nodes (node_phases.h).
#include <algorithm>

#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/comm_view.h"
#include "algo/device/chunk_pipeline.cuh"
#include "algo/device/ll_fold.cuh"
#include "algo/device/ll_protocol.cuh"
#include "algo/device/reduce_ops.cuh"
#include "algo/device/type_dispatch.cuh"
#include "algo/launch_common.h"
#include "algo/node_phases.h"
#include "algo/reduce_spec.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

using namespace dev;

template <typename T, RedKind K>
__global__ void __launch_bounds__(kKernelThreads)
    reducescatterLLKernel(DeviceComm comm, const char* in, char* out, NodeBlocks blocks, RedArg arg) {
  const Launch launch = beginLaunch(comm);
  const Reducer<T, K> red(arg);
  const ScaleOwn<T, K> scale{&red};
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;

  // What a peer finds in its slot from us: its window of every group, one group after another.
  for (int d = 1; d < comm.nranks; ++d) {
    const int peer = (comm.rank + d) % comm.nranks;
    const size_t len = windowBytes(blocks, peer);
    const size_t npackets = (len + 7) / 8;
    char* slot = llPeerSlot(comm, peer, launch.parity);
    for (int g = 0; g < blocks.groups; ++g) {
      const char* shard = in + windowOffset(blocks, g, peer);
      const bool aligned = isAligned(shard, 8);
      char* groupSlot = slot + static_cast<size_t>(g) * npackets * 16;
      for (size_t p = first; p < npackets; p += step) {
        llStore(groupSlot + p * 16, scale(load8(shard + p * 8, bytesInPack(len, p * 8, 8), aligned)), launch.flag);
      }
    }
  }

  // In place (out == own window) is safe: the push loop above read only the peers' windows.
  if (peersAgree(comm, launch)) {
    const size_t len = windowBytes(blocks, comm.rank);
    const size_t groupSlotBytes = (len + 7) / 8 * 16;
    bool ok = true;
    for (int g = 0; g < blocks.groups && ok; ++g) {
      ok = llFoldPackets(comm, launch, red, in + windowOffset(blocks, g, comm.rank), out + g * blocks.ownGroupStride,
                         len, g * groupSlotBytes, first, step);
    }
    if (!ok) reportAbort(comm, launch);
  }
  endLaunch(comm, launch);
}

// Role 0: senders of the peers' windows; role 1: reducers of ours (DirectLane). Work items are
// (group, chunk of the window), taken by the lanes in turn.
template <typename T, RedKind K, int kRanks>
__global__ void __launch_bounds__(kKernelThreads, 2)
    reducescatterChunkedKernel(const __grid_constant__ DeviceComm comm, const char* in, char* out,
                               const NodeBlocks blocks, size_t chunkBytes, size_t rounds, RedArg arg) {
  const Launch launch = beginLaunch(comm);
  DirectLane<kRanks> d(comm);
  const Reducer<T, K> red(arg);
  const size_t items = static_cast<size_t>(blocks.groups) * rounds;
  bool ok = peersAgree(comm, launch);
  for (size_t item = d.lane.lane; item < items && ok; item += d.lanes) {
    const int g = static_cast<int>(item / rounds);
    const size_t offset = (item % rounds) * chunkBytes;
    if (d.role == 0) {
      ok = waitSlotsFree(d.lane, d.peers, d.npeers, d.chunk);
      if (!ok) break;
      for (int i = 0; i < d.npeers; ++i) {
        const int peer = d.peers[i];
        char* dst = peerSlot(d.lane, peer, d.chunk[i]);
        copyChunk<1>(in + windowOffset(blocks, g, peer) + offset, false, &dst, 1,
                     chunkBytesAt(windowBytes(blocks, peer), offset, chunkBytes), ScaleOwn<T, K>{&red});
      }
      publishChunks(d.lane, d.peers, d.npeers, d.chunk);
    } else {
      ok = waitChunksReady(d.lane, d.peers, d.npeers, d.chunk);
      if (!ok) break;
      const char* srcs[kMaxPeerRanks];
      orderByRank(in + windowOffset(blocks, g, comm.rank) + offset, d.lane, d.peers, d.chunk, d.n, srcs);
      char* dst = out + g * blocks.ownGroupStride + offset;
      reduceChunk<kRanks, 1>(red, srcs, d.n, allSlotsButRank(d.n, comm.rank), &dst, 1,
                             chunkBytesAt(windowBytes(blocks, comm.rank), offset, chunkBytes));
      ackChunks(d.lane, d.peers, d.npeers, d.chunk);
    }
    d.advance();
  }
  d.finish(ok);
  if (!ok) reportAbort(comm, launch);
  endLaunch(comm, launch);
}

class ReducescatterDirect final : public Algorithm {
 public:
  const char* name() const override { return "reducescatter_direct"; }
  CollKind kind() const override { return CollKind::kReduceScatter; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    if (call.kind != CollKind::kReduceScatter || !peerPathUsable(call, ctx)) return false;
    ReduceSpec spec;
    return makeReduceSpec(call.op, call.dtype, ctx, &spec);
  }

  bool usesChunkSlots(const CollCall& call, const CommView& ctx) const override {
    const DeviceComm& comm = deviceComm(ctx);
    return !phaseUsesPackets(wholeBlocks(call.count * dtypeSize(call.dtype), comm.nranks), comm);
  }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    ReduceSpec spec;
    if (!makeReduceSpec(call.op, call.dtype, ctx, &spec)) return ncclInvalidArgument;
    const DeviceComm& comm = deviceComm(ctx);
    const size_t bytes = call.count * dtypeSize(call.dtype);
    return launchResult(launchNodeReduceScatter(comm, wholeBlocks(bytes, comm.nranks), static_cast<const char*>(call.send),
                                                static_cast<char*>(call.recv), call.dtype, spec, directKernelLanes(comm),
                                                call.stream),
                        name());
  }
};

}  // namespace

cudaError_t launchNodeReduceScatter(const DeviceComm& comm, const NodeBlocks& blocks, const char* in, char* out,
                                    ncclDataType_t dtype, const ReduceSpec& spec, int maxLanes, cudaStream_t stream) {
  const size_t groups = static_cast<size_t>(blocks.groups);
  const bool packets = phaseUsesPackets(blocks, comm);
  const int llGrid = llGridSize(groups * ((blocks.bytes + 7) / 8), comm);
  const ChunkPlan plan = planChunks(groups * blocks.bytes, comm, maxLanes);
  const size_t rounds = std::max<size_t>(1, (blocks.bytes + plan.chunkBytes - 1) / plan.chunkBytes);
  const int lanes = static_cast<int>(std::min<size_t>(groups * rounds, static_cast<size_t>(plan.lanes)));
  cudaError_t err = cudaErrorInvalidValue;
  withTypeAndRedKind(dtype, spec.kind, [&](auto typeTag, auto kindTag) {
    using T = typename decltype(typeTag)::type;
    constexpr RedKind K = decltype(kindTag)::value;
    if (packets) {
      err = launchKernel(reducescatterLLKernel<T, K>, llGrid, stream, comm, in, out, blocks, spec.arg);
    } else {
      auto kernel = comm.nranks == 2 ? reducescatterChunkedKernel<T, K, 2> : reducescatterChunkedKernel<T, K, 0>;
      err = launchCooperativeKernel(kernel, 2 * lanes, stream, comm, in, out, blocks, plan.chunkBytes, rounds, spec.arg);
    }
  });
  return err;
}

Algorithm* reducescatterDirectAlgorithm() {
  static ReducescatterDirect algorithm;
  return &algorithm;
}

}  // namespace flashccl
