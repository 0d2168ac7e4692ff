// ReduceScatter direct: every rank pushes shard q of its input to rank q; each rank folds the
// contributions to its own shard in rank order. Small shards travel as LL packets; larger ones
// stream through chunk slots with a sender role and a reducer role, pipelined per lane.
#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/device/chunk_pipeline.cuh"
#include "algo/device/ll_fold.cuh"
#include "algo/device/ll_protocol.cuh"
#include "algo/device/reduce_ops.cuh"
#include "algo/device/type_dispatch.cuh"
#include "algo/launch_common.h"
#include "algo/reduce_spec.h"
#include "algo/comm_view.h"
#include "base/config.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

using namespace dev;

template <typename T, RedKind K>
__global__ void __launch_bounds__(kKernelThreads)
    reducescatterLLKernel(DeviceComm comm, const char* in, char* out, size_t bytes, RedArg arg) {
  const Launch launch = beginLaunch(comm);
  const Reducer<T, K> red(arg);
  const ScaleOwn<T, K> scale{&red};
  const size_t npackets = (bytes + 7) / 8;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;

  for (int d = 1; d < comm.nranks; ++d) {
    const int peer = (comm.rank + d) % comm.nranks;
    const char* shard = in + static_cast<size_t>(peer) * bytes;
    const bool aligned = isAligned(shard, 8);
    char* slot = llPeerSlot(comm, peer, launch.parity);
    for (size_t p = first; p < npackets; p += step) {
      llStore(slot + p * 16, scale(load8(shard + p * 8, bytesInPack(bytes, p * 8, 8), aligned)), launch.flag);
    }
  }

  // In place (out == own shard) is safe: the push loop above read only the peers' shards.
  const char* own = in + static_cast<size_t>(comm.rank) * bytes;
  if (peersAgree(comm, launch) && !llFoldPackets(comm, launch, red, own, out, bytes, first, step)) {
    reportAbort(comm, launch);
  }
  endLaunch(comm, launch);
}

// Role 0: senders of the peers' shards; role 1: reducers of our shard (DirectLane).
template <typename T, RedKind K, int kRanks>
__global__ void __launch_bounds__(kKernelThreads, 2)
    reducescatterChunkedKernel(const __grid_constant__ DeviceComm comm, const char* in, char* out, size_t bytes,
                               size_t chunkBytes, size_t rounds, RedArg arg) {
  const Launch launch = beginLaunch(comm);
  DirectLane<kRanks> d(comm);
  const Reducer<T, K> red(arg);
  bool ok = peersAgree(comm, launch);
  for (size_t t = d.lane.lane; t < rounds && ok; t += d.lanes) {
    const size_t offset = t * chunkBytes;
    const size_t len = bytes - offset < chunkBytes ? bytes - offset : chunkBytes;
    if (d.role == 0) {
      ok = waitSlotsFree(d.lane, d.peers, d.npeers, d.chunk);
      if (!ok) break;
      for (int i = 0; i < d.npeers; ++i) {
        char* dst = peerSlot(d.lane, d.peers[i], d.chunk[i]);
        copyChunk<1>(in + static_cast<size_t>(d.peers[i]) * bytes + offset, false, &dst, 1, len, ScaleOwn<T, K>{&red});
      }
      publishChunks(d.lane, d.peers, d.npeers, d.chunk);
    } else {
      ok = waitChunksReady(d.lane, d.peers, d.npeers, d.chunk);
      if (!ok) break;
      const char* srcs[kMaxPeerRanks];
      orderByRank(in + static_cast<size_t>(comm.rank) * bytes + offset, d.lane, d.peers, d.chunk, d.n, srcs);
      char* dst = out + offset;
      reduceChunk<kRanks, 1>(red, srcs, d.n, allSlotsButRank(d.n, comm.rank), &dst, 1, len);
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

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    ReduceSpec spec;
    if (!makeReduceSpec(call.op, call.dtype, ctx, &spec)) return ncclInvalidArgument;
    const DeviceComm& comm = deviceComm(ctx);
    const size_t bytes = call.count * dtypeSize(call.dtype);
    const char* in = static_cast<const char*>(call.send);
    char* out = static_cast<char*>(call.recv);
    const bool packets = bytes <= Config::get().llMaxBytes && bytes <= llPayloadCapacity(comm.layout);
    const int llGrid = llGridSize((bytes + 7) / 8, ctx);
    const ChunkPlan plan = planChunks(bytes, comm, comm.maxResidentBlocks / 2);
    cudaError_t err = cudaErrorInvalidValue;
    withTypeAndRedKind(call.dtype, spec.kind, [&](auto typeTag, auto kindTag) {
      using T = typename decltype(typeTag)::type;
      constexpr RedKind K = decltype(kindTag)::value;
      if (packets) {
        err = launchKernel(reducescatterLLKernel<T, K>, llGrid, call.stream, comm, in, out, bytes, spec.arg);
      } else {
        auto kernel = comm.nranks == 2 ? reducescatterChunkedKernel<T, K, 2> : reducescatterChunkedKernel<T, K, 0>;
        err = launchCooperativeKernel(kernel, 2 * plan.lanes, call.stream, comm, in, out, bytes, plan.chunkBytes, plan.rounds,
                           spec.arg);
      }
    });
    return launchResult(err, name());
  }
};

}  // namespace

Algorithm* reducescatterDirectAlgorithm() {
  static ReducescatterDirect algorithm;
  return &algorithm;
}

}  // namespace flashccl
