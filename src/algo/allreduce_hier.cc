// AllReduce across nodes, pipelined. The buffer is cut into one shard per local rank
// (allreduceShardBytes; the last shards shorter or empty) and every shard into windows; for each
// window k:
//   1. reduce-scatter inside the node (our kernel): local rank l gets the node's sum of its
//      shard's window k, in its output;
//   2. AllReduce of that window between nodes, on rail l (the real NCCL, on the rail stream);
//   3. all-gather inside the node (our kernel): every local rank copies every shard's window k.
// The windows overlap: while NCCL reduces window k between nodes, the call's stream runs the
// reduce-scatter of window k+1 and the all-gather of window k-1 (rail_steps.h). Each local rank
// sends 2(G-1)/G of the buffer over NVLink and its rail carries 1/G of it between nodes, as
// NCCL's own hierarchical rings do.
//
// Results: inside a node the fold order is fixed (rank order); across nodes it is NCCL's, and
// NCCL gives every rank of a rail the same bits; every shard is reduced by one rail and then
// copied. So all ranks get identical bits, run after run. They can differ from a plain NCCL
// AllReduce over the whole communicator where the order of operations matters: floating-point
// sums (also ncclAvg and PreMulSum) and products over more than two ranks.
#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/call_kernels.h"
#include "algo/comm_view.h"
#include "algo/hierarchy_plan.h"
#include "algo/launch_common.h"
#include "algo/node_phases.h"
#include "algo/rail_agreement.h"
#include "algo/rail_steps.h"
#include "base/check.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

class AllreduceHier final : public Algorithm {
 public:
  const char* name() const override { return "allreduce_hier"; }
  CollKind kind() const override { return CollKind::kAllReduce; }
  bool spansNodes() const override { return true; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    ReduceSpec spec;
    ncclRedOp_t railOp;
    return call.kind == CollKind::kAllReduce && hierarchyUsable(call, ctx) &&
           reductionAcrossNodes(call, ctx, &spec, &railOp);
  }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    ReduceSpec spec;
    ncclRedOp_t railOp;
    if (!reductionAcrossNodes(call, ctx, &spec, &railOp)) return ncclInvalidArgument;
    const Hierarchy& h = *ctx.hierarchy();
    const DeviceComm& comm = deviceComm(ctx);
    const size_t elem = dtypeSize(call.dtype);
    const size_t shard = allreduceShardBytes(call.count, elem, h.localRanks);
    const Windows windows = cutWindows(shard, kHierMinWindowBytes, 0, kHierMaxWindows, kHierAlign);
    // Local rank j's shard: [j * shard, (j + 1) * shard) of the buffer, cut to the buffer.
    const NodeBlocks shards{1, 0, 0, shard, call.count * elem, 0, windows.bytes};
    const char* in = static_cast<const char*>(call.send);
    char* out = static_cast<char*>(call.recv);
    char* ownShard = out + static_cast<size_t>(h.localRank) * shard;
    const int lanes = hierarchyLanes(comm);
    auto window = [&](int k) {
      NodeBlocks b = shards;
      b.window = static_cast<size_t>(k) * windows.bytes;
      return b;
    };
    // The all-gather of window k; the first one checks the rail's call records, the last one
    // completes the call.
    auto gather = [&](int k) {
      FCCL_CHECK(awaitRailStep(h, k, call.stream));
      const NodeBlocks b = window(k);
      const DeviceComm checked = k == 0 ? withRailRecords(comm, h) : comm;
      return launchResult(launchNodeAllGather(k == windows.count - 1 ? checked : notLastKernelOfCall(checked), b,
                                              ownShard + b.window, out, lanes, call.stream),
                          name());
    };

    for (int k = 0; k < windows.count; ++k) {
      const NodeBlocks b = window(k);
      FCCL_CHECK(launchResult(
          launchNodeReduceScatter(notLastKernelOfCall(comm), b, in, ownShard + b.window, call.dtype, spec, lanes,
                                  call.stream),
          name()));
      FCCL_CHECK(forkRailStream(h, call.stream));
      if (k == 0) FCCL_CHECK(stampCallRecord(h, comm.callHeader));
      RailGroup step(h);
      if (k == 0) step.gatherRecords();
      // Every rank of rail l computes the same length, so a rail with nothing in this window
      // skips its AllReduce on all of its ranks.
      const size_t bytes = windowBytes(b, h.localRank);
      if (bytes > 0) step.allReduce(ownShard + b.window, bytes / elem, call.dtype, railOp);
      FCCL_CHECK(step.end());
      FCCL_CHECK(markRailStep(h, k));
      if (k > 0) FCCL_CHECK(gather(k - 1));
    }
    return gather(windows.count - 1);
  }
};

}  // namespace

Algorithm* allreduceHierAlgorithm() {
  static AllreduceHier algorithm;
  return &algorithm;
}

}  // namespace flashccl
