// AllGather across nodes, pipelined. Communicator ranks must be numbered node by node
// (Hierarchy::nodeMajor), so node m's blocks are one run of the output: [m * G * P, (m+1) * G * P)
// for G ranks a node and P bytes a rank.
//   - inside this node first (our kernel), while the rail works: every local rank's input to every
//     local rank's block of this node;
//   - between nodes, window by window, on rail l (the real NCCL's send/recv on the rail stream):
//     this rank's input to the rank with the same local index on every other node, and theirs
//     straight into their blocks of the output;
//   - inside this node again (our kernel), window k of every other node's blocks as soon as the
//     rail has brought it: local rank l copies to its peers what its rail received.
// While NCCL moves window k+1 between nodes, our kernel spreads window k inside the node. Each
// rank sends its input once to every other node (the least any AllGather sends between nodes)
// and every block once over NVLink to each local peer. Blocks are copied, never combined: the
// output is NCCL's bit for bit.
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

class AllgatherHier final : public Algorithm {
 public:
  const char* name() const override { return "allgather_hier"; }
  CollKind kind() const override { return CollKind::kAllGather; }
  bool spansNodes() const override { return true; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    return call.kind == CollKind::kAllGather && hierarchyUsable(call, ctx) && ctx.hierarchy()->nodeMajor;
  }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    const Hierarchy& h = *ctx.hierarchy();
    const DeviceComm& comm = deviceComm(ctx);
    const size_t rankBytes = call.count * dtypeSize(call.dtype);
    const size_t nodeBytes = rankBytes * h.localRanks;
    const Windows windows = cutWindows(rankBytes, kHierMinWindowBytes, 0, kHierMaxWindows, kHierAlign);
    const char* in = static_cast<const char*>(call.send);
    char* out = static_cast<char*>(call.recv);
    const int lanes = hierarchyLanes(comm);
    // Node m's blocks: G blocks of P bytes at out + m * G * P; this rank's block of node m is the
    // one its rail fills (local index l), and consecutive nodes are G * P apart on both sides.
    auto blockOf = [&](int node) { return out + (static_cast<size_t>(node) * h.localRanks + h.localRank) * rankBytes; };
    const NodeBlocks nodes{1, nodeBytes, nodeBytes, rankBytes, nodeBytes, 0, rankBytes};

    FCCL_CHECK(forkRailStream(h, call.stream));
    FCCL_CHECK(launchResult(launchNodeAllGather(notLastKernelOfCall(comm), nodes, in,
                                                out + static_cast<size_t>(h.node) * nodeBytes, lanes, call.stream),
                            name()));
    FCCL_CHECK(stampCallRecord(h, comm.callHeader));
    bool checked = false;
    for (int k = 0; k < windows.count; ++k) {
      const size_t offset = static_cast<size_t>(k) * windows.bytes;
      const size_t bytes = chunkBytesAt(rankBytes, offset, windows.bytes);
      RailGroup step(h);
      if (k == 0) step.gatherRecords();
      for (int m = 0; m < h.nnodes; ++m) {
        if (m != h.node) step.exchange(m, in + offset, blockOf(m) + offset, bytes);
      }
      FCCL_CHECK(step.end());
      FCCL_CHECK(markRailStep(h, k));
      FCCL_CHECK(awaitRailStep(h, k, call.stream));
      // The other nodes, as the (at most two) runs around this one. The call completes with the
      // last window's last run: the one after this node, or before it on the last node.
      const int runs[2][2] = {{0, h.node}, {h.node + 1, h.nnodes}};
      const int lastRunEnd = h.node == h.nnodes - 1 ? h.node : h.nnodes;
      for (const auto& run : runs) {
        if (run[0] >= run[1]) continue;
        NodeBlocks b = nodes;
        b.groups = run[1] - run[0];
        b.window = offset;
        b.bytes = windows.bytes;
        const DeviceComm agreed = checked ? comm : withRailRecords(comm, h);
        const bool last = k == windows.count - 1 && run[1] == lastRunEnd;
        FCCL_CHECK(launchResult(launchNodeAllGather(last ? agreed : notLastKernelOfCall(agreed), b,
                                                    blockOf(run[0]) + offset,
                                                    out + static_cast<size_t>(run[0]) * nodeBytes, lanes, call.stream),
                                name()));
        checked = true;
      }
    }
    return ncclSuccess;
  }
};

}  // namespace

Algorithm* allgatherHierAlgorithm() {
  static AllgatherHier algorithm;
  return &algorithm;
}

}  // namespace flashccl
