// ReduceScatter across nodes, pipelined. Communicator ranks must be numbered node by node
// (Hierarchy::nodeMajor), so the input blocks meant for node m's ranks are one run:
// [m * G * P, (m+1) * G * P) for G ranks a node and P output bytes a rank. For each window k:
//   1. reduce-scatter inside the node (our kernel): local rank l gets the node's sum of window k
//      of the block meant for local rank l of every node, one after another in its staging slot;
//   2. ReduceScatter of the staging slot between nodes, on rail l (the real NCCL, on the rail
//      stream): rail rank m (node m) gets the sum over all nodes of its block, into its output.
// While NCCL reduces window k between nodes, our kernel reduces window k+1 inside the node, into
// the other of two staging slots. Each rank sends (G-1)/G of its input over NVLink and its rail
// carries (N-1)/N of its node's partial sums between nodes, the least either can.
// NCCL's step is the last, so a last launch of ours compares the rail's call records
// (launchRailCheckpoint).
//
// Results: inside a node the fold order is fixed (rank order), across nodes it is NCCL's: the
// same bits run after run. They can differ from a plain NCCL ReduceScatter over the whole
// communicator where the order of operations matters: floating-point sums (also ncclAvg and
// PreMulSum) and products over more than two ranks.
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

// Two staging slots of one window's blocks for every node: the largest window that fits.
size_t largestWindow(const Hierarchy& h) {
  return h.stagingBytes / (2 * static_cast<size_t>(h.nnodes)) / kHierAlign * kHierAlign;
}

class ReducescatterHier final : public Algorithm {
 public:
  const char* name() const override { return "reducescatter_hier"; }
  CollKind kind() const override { return CollKind::kReduceScatter; }
  bool spansNodes() const override { return true; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    ReduceSpec spec;
    ncclRedOp_t railOp;
    return call.kind == CollKind::kReduceScatter && hierarchyUsable(call, ctx) && ctx.hierarchy()->nodeMajor &&
           largestWindow(*ctx.hierarchy()) > 0 && reductionAcrossNodes(call, ctx, &spec, &railOp);
  }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    ReduceSpec spec;
    ncclRedOp_t railOp;
    if (!reductionAcrossNodes(call, ctx, &spec, &railOp)) return ncclInvalidArgument;
    const Hierarchy& h = *ctx.hierarchy();
    const DeviceComm& comm = deviceComm(ctx);
    const size_t elem = dtypeSize(call.dtype);
    const size_t rankBytes = call.count * elem;
    const size_t nodeBytes = rankBytes * h.localRanks;
    const Windows windows =
        cutWindows(rankBytes, kHierMinWindowBytes, largestWindow(h), kHierMaxWindows, kHierAlign);
    const char* in = static_cast<const char*>(call.send);
    char* out = static_cast<char*>(call.recv);
    const int lanes = hierarchyLanes(comm);

    for (int k = 0; k < windows.count; ++k) {
      const size_t offset = static_cast<size_t>(k) * windows.bytes;
      const size_t bytes = chunkBytesAt(rankBytes, offset, windows.bytes);
      char* slot = h.staging + static_cast<size_t>(k % 2) * h.nnodes * windows.bytes;
      // The slot was last read by step k-2 between nodes.
      if (k >= 2) FCCL_CHECK(awaitRailStep(h, k, call.stream));
      // Node m's blocks form group m; this rank's window of group m goes to slot + m * bytes, the
      // layout NCCL's ReduceScatter takes.
      const NodeBlocks b{h.nnodes, nodeBytes, bytes, rankBytes, nodeBytes, offset, windows.bytes};
      FCCL_CHECK(launchResult(
          launchNodeReduceScatter(notLastKernelOfCall(comm), b, in, slot, call.dtype, spec, lanes, call.stream),
          name()));
      FCCL_CHECK(forkRailStream(h, call.stream));
      if (k == 0) FCCL_CHECK(stampCallRecord(h, comm.callHeader));
      RailGroup step(h);
      if (k == 0) step.gatherRecords();
      step.reduceScatter(slot, out + offset, bytes / elem, call.dtype, railOp);
      FCCL_CHECK(step.end());
      FCCL_CHECK(markRailStep(h, k));
    }
    FCCL_CHECK(awaitRailStep(h, windows.count - 1, call.stream));
    return launchResult(launchRailCheckpoint(withRailRecords(comm, h), call.stream), name());
  }
};

}  // namespace

Algorithm* reducescatterHierAlgorithm() {
  static ReducescatterHier algorithm;
  return &algorithm;
}

}  // namespace flashccl
