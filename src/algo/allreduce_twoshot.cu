// AllReduce two-shot: reduce-scatter then all-gather, streamed through chunk slots so both phases
// overlap. The buffer is cut into rounds of nranks chunks; in each round rank j owns chunk j.
// Three roles of `lanes` thread blocks each:
//   0  reduce-scatter sender: pushes chunk q of the round to rank q (channel 0);
//   1  reducer: folds its own chunk over all ranks in rank order, writes the result to its output
//      and pushes it to every peer (channel 1) in the same pass;
//   2  all-gather receiver: copies the peers' results into the output.
// Each rank sends 2(n-1)/n of the buffer over NVLink, the minimum for an allreduce. The fold runs
// in the same order on every rank, so results are bitwise identical everywhere.
#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/device/chunk_pipeline.cuh"
#include "algo/device/reduce_ops.cuh"
#include "algo/device/type_dispatch.cuh"
#include "algo/launch_common.h"
#include "algo/reduce_spec.h"
#include "algo/comm_view.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

using namespace dev;

constexpr int kRoles = 3;

__device__ __forceinline__ size_t shardLength(size_t bytes, size_t start, size_t chunkBytes) {
  if (start >= bytes) return 0;
  return bytes - start < chunkBytes ? bytes - start : chunkBytes;
}

// kRanks: the rank count when known at compile time (2, the common NVLink pair), else 0. Knowing
// it lets the compiler keep the per-peer arrays in registers instead of local memory.
template <typename T, RedKind K, int kRanks>
__global__ void __launch_bounds__(kKernelThreads, 2)
    allreduceTwoshotKernel(const __grid_constant__ DeviceComm comm, const char* in, char* out, size_t bytes,
                           size_t chunkBytes, size_t rounds, RedArg arg) {
  const Launch launch = beginLaunch(comm);
  const int lanes = gridDim.x / kRoles;
  const int role = blockIdx.x / lanes;
  const int laneId = blockIdx.x % lanes;
  const LaneRef scatter{&comm, 0, laneId};
  const LaneRef gather{&comm, 1, laneId};
  const int n = kRanks ? kRanks : comm.nranks;
  const int npeers = n - 1;
  int peers[kMaxPeerRanks];
  uint64_t recvChunk[kMaxPeerRanks];  // role 1: channel 0 received; role 2: channel 1 received
  uint64_t sendChunk[kMaxPeerRanks];  // role 0: channel 0 sent;     role 1: channel 1 sent
  const LaneRef& recvLane = role == 1 ? scatter : gather;
  const LaneRef& sendLane = role == 0 ? scatter : gather;
  for (int i = 0; i < npeers; ++i) {
    peers[i] = (comm.rank + 1 + i) % n;
    recvChunk[i] = role == 0 ? 0 : chunkCounter(recvLane, true, peers[i]);
    sendChunk[i] = role == 2 ? 0 : chunkCounter(sendLane, false, peers[i]);
  }
  const Reducer<T, K> red(arg);
  const size_t roundBytes = chunkBytes * n;
  bool ok = peersAgree(comm, launch);
  for (size_t t = laneId; t < rounds && ok; t += lanes) {
    const size_t base = t * roundBytes;
    if (role == 0) {
      ok = waitSlotsFree(scatter, peers, npeers, sendChunk);
      if (!ok) break;
      for (int i = 0; i < npeers; ++i) {
        const size_t start = base + static_cast<size_t>(peers[i]) * chunkBytes;
        char* dst = peerSlot(scatter, peers[i], sendChunk[i]);
        copyChunk<1>(in + start, false, &dst, 1, shardLength(bytes, start, chunkBytes), ScaleOwn<T, K>{&red});
      }
      publishChunks(scatter, peers, npeers, sendChunk);
    } else if (role == 1) {
      ok = waitChunksReady(scatter, peers, npeers, recvChunk) &&
           waitSlotsFree(gather, peers, npeers, sendChunk);
      if (!ok) break;
      const size_t start = base + static_cast<size_t>(comm.rank) * chunkBytes;
      const char* srcs[kMaxPeerRanks];
      orderByRank(in + start, scatter, peers, recvChunk, n, srcs);
      char* dsts[kMaxPeerRanks];
      dsts[0] = out + start;
      for (int i = 0; i < npeers; ++i) dsts[1 + i] = peerSlot(gather, peers[i], sendChunk[i]);
      // In place is safe: each element of our own chunk is read and then written by one thread.
      reduceChunk<kRanks, kRanks>(red, srcs, n, allSlotsButRank(n, comm.rank), dsts, n, shardLength(bytes, start, chunkBytes));
      ackChunks(scatter, peers, npeers, recvChunk);
      publishChunks(gather, peers, npeers, sendChunk);
    } else {
      ok = waitChunksReady(gather, peers, npeers, recvChunk);
      if (!ok) break;
      for (int i = 0; i < npeers; ++i) {
        // In place is safe: peer q only sends its result for this round after it received our
        // contribution to chunk q, which role 0 read from `in` before publishing it.
        const size_t start = base + static_cast<size_t>(peers[i]) * chunkBytes;
        char* dst = out + start;
        copyChunk<1>(localSlot(gather, peers[i], recvChunk[i]), true, &dst, 1, shardLength(bytes, start, chunkBytes));
      }
      ackChunks(gather, peers, npeers, recvChunk);
    }
    for (int i = 0; i < npeers; ++i) {
      ++recvChunk[i];
      ++sendChunk[i];
    }
  }
  if (!ok) {
    reportAbort(comm, launch);
  } else if (threadIdx.x == 0) {
    for (int i = 0; i < npeers; ++i) {
      if (role != 0) chunkCounter(recvLane, true, peers[i]) = recvChunk[i];
      if (role != 2) chunkCounter(sendLane, false, peers[i]) = sendChunk[i];
    }
  }
  endLaunch(comm, launch);
}

class AllreduceTwoshot final : public Algorithm {
 public:
  const char* name() const override { return "allreduce_twoshot"; }
  CollKind kind() const override { return CollKind::kAllReduce; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    if (call.kind != CollKind::kAllReduce || !peerPathUsable(call, ctx)) return false;
    ReduceSpec spec;
    return makeReduceSpec(call.op, call.dtype, ctx, &spec);
  }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    ReduceSpec spec;
    if (!makeReduceSpec(call.op, call.dtype, ctx, &spec)) return ncclInvalidArgument;
    const DeviceComm& comm = deviceComm(ctx);
    const size_t bytes = call.count * dtypeSize(call.dtype);
    const size_t perRank = (bytes + comm.nranks - 1) / comm.nranks;
    const ChunkPlan plan = planChunks(perRank, comm, comm.maxResidentBlocks / kRoles);
    const size_t rounds = (bytes + plan.chunkBytes * comm.nranks - 1) / (plan.chunkBytes * comm.nranks);
    const int lanes = static_cast<int>(rounds < static_cast<size_t>(plan.lanes) ? rounds : plan.lanes);
    const char* in = static_cast<const char*>(call.send);
    char* out = static_cast<char*>(call.recv);
    cudaError_t err = cudaErrorInvalidValue;
    withTypeAndRedKind(call.dtype, spec.kind, [&](auto typeTag, auto kindTag) {
      using T = typename decltype(typeTag)::type;
      constexpr RedKind K = decltype(kindTag)::value;
      auto kernel = comm.nranks == 2 ? allreduceTwoshotKernel<T, K, 2> : allreduceTwoshotKernel<T, K, 0>;
      err = launchCooperativeKernel(kernel, kRoles * lanes, call.stream, comm, in, out, bytes, plan.chunkBytes, rounds,
                         spec.arg);
    });
    return launchResult(err, name());
  }
};

}  // namespace

Algorithm* allreduceTwoshotAlgorithm() {
  static AllreduceTwoshot algorithm;
  return &algorithm;
}

}  // namespace flashccl
