// ReduceScatter direct: every rank pushes shard q of its input to rank q; each rank folds the
// contributions to its own shard in rank order. Small shards travel as LL packets; larger ones
// stream through chunk slots with a sender role and a reducer role, pipelined per lane.
#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/device/chunk_pipeline.cuh"
#include "algo/device/ll_protocol.cuh"
#include "algo/device/reduce_ops.cuh"
#include "algo/device/type_dispatch.cuh"
#include "algo/launch_common.h"
#include "algo/reduce_spec.h"
#include "core/comm_context.h"
#include "core/config.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

using namespace dev;

template <typename T, RedKind K>
__global__ void __launch_bounds__(kKernelThreads)
    reducescatterLLKernel(DeviceComm comm, const char* in, char* out, size_t bytes, RedArg arg) {
  dev::announceCall(comm);  // first: a peer that waits on us can tell which call we run
  const LLLaunch launch = beginLL(comm);
  const Reducer<T, K> red(arg);
  const size_t npackets = (bytes + 7) / 8;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;

  for (int d = 1; d < comm.nranks; ++d) {
    const int peer = (comm.rank + d) % comm.nranks;
    const char* shard = in + static_cast<size_t>(peer) * bytes;
    const bool aligned = isAligned(shard, 8);
    char* slot = llPeerSlot(comm, peer, launch.parity);
    for (size_t p = first; p < npackets; p += step) {
      llStore(slot + p * 16, load8(shard + p * 8, bytesInPack(bytes, p * 8, 8), aligned), launch.flag);
    }
  }

  const char* own = in + static_cast<size_t>(comm.rank) * bytes;
  const bool ownAligned = isAligned(own, 8);
  const bool outAligned = isAligned(out, 8);
  bool ok = true;
  for (size_t p = first; p < npackets && ok; p += step) {
    const int nbytes = bytesInPack(bytes, p * 8, 8);
    Pack<T, 8> acc;
    for (int r = 0; r < comm.nranks && ok; ++r) {
      uint64_t v;
      if (r == comm.rank) {
        v = load8(own + p * 8, nbytes, ownAligned);
      } else {
        ok = llLoad(llLocalSlot(comm, r, launch.parity) + p * 16, launch.flag, comm, &v);
      }
      accumulate(red, acc, toPack<T, 8>(v), r == 0);
    }
    finish(red, acc);
    // In place (out == own shard) is safe: only this thread reads this packet of the own shard.
    if (ok) store8(out + p * 8, fromPack<uint64_t>(acc), nbytes, outAligned);
  }
  if (!ok) reportAbort(comm);
  endLL(comm, launch);
}

// Role 0 (blocks [0, lanes)): senders of the peers' shards. Role 1: reducers of our shard.
// kRanks: the rank count when known at compile time (2), else 0 (see allreduce_twoshot.cu).
template <typename T, RedKind K, int kRanks>
__global__ void __launch_bounds__(kKernelThreads, 2)
    reducescatterChunkedKernel(const __grid_constant__ DeviceComm comm, const char* in, char* out, size_t bytes,
                               size_t chunkBytes, size_t rounds, RedArg arg) {
  dev::announceCall(comm);  // first: a peer that waits on us can tell which call we run
  const int lanes = gridDim.x / 2;
  const int role = blockIdx.x / lanes;
  const LaneRef lane{&comm, 0, static_cast<int>(blockIdx.x % lanes)};
  const int n = kRanks ? kRanks : comm.nranks;
  const int npeers = n - 1;
  int peers[kMaxPeerRanks];
  uint64_t chunk[kMaxPeerRanks];
  for (int i = 0; i < npeers; ++i) {
    peers[i] = (comm.rank + 1 + i) % n;
    chunk[i] = chunkCounter(lane, role == 1, peers[i]);
  }
  const Reducer<T, K> red(arg);
  bool ok = true;
  for (size_t t = lane.lane; t < rounds && ok; t += lanes) {
    const size_t offset = t * chunkBytes;
    const size_t len = bytes - offset < chunkBytes ? bytes - offset : chunkBytes;
    if (role == 0) {
      ok = waitSlotsFree(lane, peers, npeers, chunk);
      if (!ok) break;
      for (int i = 0; i < npeers; ++i) {
        char* dst = peerSlot(lane, peers[i], chunk[i]);
        copyChunk<1>(in + static_cast<size_t>(peers[i]) * bytes + offset, false, &dst, 1, len);
      }
      publishChunks(lane, peers, npeers, chunk);
    } else {
      ok = waitChunksReady(lane, peers, npeers, chunk);
      if (!ok) break;
      const char* srcs[kMaxPeerRanks];
      orderByRank(in + static_cast<size_t>(comm.rank) * bytes + offset, lane, peers, chunk, n, srcs);
      char* dst = out + offset;
      reduceChunk<kRanks, 1>(red, srcs, n, allSlotsButRank(n, comm.rank), &dst, 1, len);
      ackChunks(lane, peers, npeers, chunk);
    }
    for (int i = 0; i < npeers; ++i) ++chunk[i];
  }
  if (!ok) {
    if (threadIdx.x == 0) reportAbort(comm);
    return;
  }
  if (threadIdx.x == 0) {
    for (int i = 0; i < npeers; ++i) chunkCounter(lane, role == 1, peers[i]) = chunk[i];
  }
}

class ReducescatterDirect final : public Algorithm {
 public:
  const char* name() const override { return "reducescatter_direct"; }
  CollKind kind() const override { return CollKind::kReduceScatter; }

  bool supports(const CollCall& call, const CommContext& ctx) const override {
    if (call.kind != CollKind::kReduceScatter || !peerPathUsable(call, ctx)) return false;
    ReduceSpec spec;
    return makeReduceSpec(call.op, call.dtype, ctx, &spec);
  }

  ncclResult_t launch(const CollCall& call, CommContext& ctx) override {
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
    withElementType(call.dtype, [&](auto typeTag) {
      using T = typename decltype(typeTag)::type;
      withRedKind<T>(spec.kind, [&](auto kindTag) {
        constexpr RedKind K = decltype(kindTag)::value;
        if (packets) {
          err = launchKernel(reducescatterLLKernel<T, K>, llGrid, call.stream, comm, in, out, bytes, spec.arg);
        } else {
          auto kernel = comm.nranks == 2 ? reducescatterChunkedKernel<T, K, 2> : reducescatterChunkedKernel<T, K, 0>;
          err = launchKernel(kernel, 2 * plan.lanes, call.stream, comm, in, out, bytes, plan.chunkBytes, plan.rounds,
                             spec.arg);
        }
      });
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
