// Selection with nodes: a row applies to a communicator only when its node count and its
// algorithm's reach (one node, or across nodes) fit; the one-node selection is exactly what it was
// before rows across nodes existed; the built-in algorithms across nodes accept what they can run
// and leave the rest to NCCL; MSCCL programs are refused across nodes, at load, saying why. No
// row across nodes is measured: without FLASHCCL_UNMEASURED=1 none is armed, while the measured
// one-node rows of the same file stay armed.
#include <gtest/gtest.h>

#include <string>

#include "algo/algorithm.h"
#include "algo/hierarchy.h"
#include "runtime/comm_context.h"
#include "runtime/described_comm.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"
#include "topo/builtin_table.h"
#include "topo/selection_table.h"
#include "topo/topology_file.h"

namespace flashccl {
namespace {

class ReachStub : public Algorithm {
 public:
  ReachStub(const char* name, bool acrossNodes) : name_(name), acrossNodes_(acrossNodes) {}
  const char* name() const override { return name_; }
  CollKind kind() const override { return CollKind::kAllReduce; }
  bool spansNodes() const override { return acrossNodes_; }
  bool supports(const CollCall&, const CommView&) const override { return true; }
  ncclResult_t launch(const CollCall&, const CommView&) override { return ncclSuccess; }

 private:
  const char* name_;
  bool acrossNodes_;
};

ReachStub gInside("stub_inside_node", false);
ReachStub gAcross("stub_across_nodes", true);

std::shared_ptr<Algorithm> resolveReach(const std::string& name, int, int, std::string* error) {
  if (name == gInside.name()) return unownedAlgorithm(&gInside);
  if (name == gAcross.name()) return unownedAlgorithm(&gAcross);
  *error = "unknown algorithm '" + name + "'";
  return nullptr;
}

SelectionRow anyRow(const char* algorithm, int nnodes = 0) {
  SelectionRow r;
  r.kind = CollKind::kAllReduce;
  r.nnodes = nnodes;
  r.algorithm = algorithm;
  r.source = std::string("test:") + algorithm;
  return r;
}

CollCall allreduce(size_t count, ncclDataType_t dtype = ncclFloat32, ncclRedOp_t op = ncclSum) {
  static char buffer[16];
  return CollCall{CollKind::kAllReduce, buffer, buffer, count, dtype, op, 0, nullptr, nullptr};
}

TEST(HierarchySelection, RowsForAnyNodeCountKeepTheAlgorithmsThatFit) {
  SelectionTable table;
  table.rows = {anyRow("stub_inside_node"), anyRow("stub_across_nodes")};
  std::string warnings;
  auto oneNode = Selector::build(table, "", 4, 1, resolveReach, &warnings);
  auto twoNodes = Selector::build(table, "", 4, 2, resolveReach, &warnings);
  EXPECT_EQ(warnings, "");  // a row that does not fit the node count is not a fault of the table
  CommContext ctx(nullptr, 0, 4, -1, true);
  EXPECT_EQ(oneNode->choose(allreduce(64), ctx).algorithm, &gInside);
  EXPECT_EQ(twoNodes->choose(allreduce(64), ctx).algorithm, &gAcross);
  EXPECT_FALSE(oneNode->spansNodes());
  EXPECT_TRUE(twoNodes->spansNodes());
  EXPECT_EQ(oneNode->describe().find("stub_across_nodes"), std::string::npos);
  EXPECT_EQ(twoNodes->describe().find("stub_inside_node"), std::string::npos);
}

TEST(HierarchySelection, NodesAttributeMatchesTheNodeCount) {
  SelectionTable table;
  table.rows = {anyRow("stub_across_nodes", 2)};
  std::string warnings;
  CommContext ctx(nullptr, 0, 8, -1, true);
  EXPECT_EQ(Selector::build(table, "", 8, 2, resolveReach, &warnings)->choose(allreduce(8), ctx).algorithm, &gAcross);
  auto fourNodes = Selector::build(table, "", 8, 4, resolveReach, &warnings);
  EXPECT_EQ(fourNodes->choose(allreduce(8), ctx).reason, reason::kNoRow);
  EXPECT_FALSE(fourNodes->spansNodes());  // set-up then makes no rails and forwards everything
}

TEST(HierarchySelection, ForcedAlgorithmOfTheWrongReachIsRefusedWithAWarning) {
  SelectionTable table;
  table.rows = {anyRow("stub_across_nodes")};
  std::string warnings;
  CommContext ctx(nullptr, 0, 4, -1, true);
  auto selector = Selector::build(table, "stub_inside_node", 4, 2, resolveReach, &warnings);
  EXPECT_NE(warnings.find("FLASHCCL_ALGO: stub_inside_node runs inside one node; this communicator spans 2 nodes"),
            std::string::npos)
      << warnings;
  EXPECT_EQ(selector->choose(allreduce(8), ctx).algorithm, &gAcross);  // the table's rows still apply
}

// The built-in table on one node selects exactly what it selected before it had rows across nodes.
TEST(HierarchySelection, OneNodeSelectionIsUnchangedByRowsAcrossNodes) {
  SelectionTable withoutHierarchy = builtinSelectionTable();
  withoutHierarchy.rows.clear();
  for (const SelectionRow& row : builtinSelectionTable().rows) {
    if (row.algorithm.find("_hier") == std::string::npos) withoutHierarchy.rows.push_back(row);
  }
  ASSERT_LT(withoutHierarchy.rows.size(), builtinSelectionTable().rows.size());
  for (int nranks : {2, 4, 8}) {
    std::string warnings;
    // Armed (FLASHCCL_UNMEASURED=1), so that there are rows to compare.
    auto now = Selector::build(builtinSelectionTable(), "", nranks, 1, resolveAlgorithm, &warnings,
                               /*armUnmeasured=*/true);
    auto before = Selector::build(withoutHierarchy, "", nranks, 1, resolveAlgorithm, &warnings,
                                  /*armUnmeasured=*/true);
    EXPECT_NE(now->describe(), "") << nranks;
    EXPECT_EQ(warnings, "");
    EXPECT_EQ(now->fingerprint(), before->fingerprint()) << nranks;
    EXPECT_EQ(now->describe(), before->describe()) << nranks;
    EXPECT_FALSE(now->spansNodes());
  }
}

// A described communicator with the built-in table, armed as with FLASHCCL_UNMEASURED=1 unless
// told otherwise (the built-in table is not measured anywhere).
struct Described {
  explicit Described(int nranks, int nnodes, const SelectionTable& table = builtinSelectionTable(),
                     bool armUnmeasured = true)
      : ctx(nullptr, 0, nranks, -1, true) {
    describeCommunicator(&ctx, nnodes);
    std::string warnings;
    selector = Selector::build(table, "", nranks, nnodes, resolveAlgorithm, &warnings, armUnmeasured);
    EXPECT_EQ(warnings, "");
  }
  const char* runs(CollKind kind, size_t count, ncclDataType_t dtype = ncclFloat32, ncclRedOp_t op = ncclSum) {
    static char buffer[16];
    const Plan plan = selector->choose(CollCall{kind, buffer, buffer, count, dtype, op, 0, nullptr, nullptr}, ctx);
    return plan.algorithm ? plan.algorithm->name() : "nccl";
  }
  CommContext ctx;
  std::unique_ptr<Selector> selector;
};

TEST(HierarchySelection, BuiltInAlgorithmsAcrossNodes) {
  Described twoByFour(8, 2);
  ASSERT_NE(twoByFour.ctx.hierarchy(), nullptr);
  EXPECT_EQ(twoByFour.ctx.hierarchy()->localRanks, 4);
  EXPECT_TRUE(twoByFour.selector->spansNodes());
  EXPECT_STREQ(twoByFour.runs(CollKind::kAllReduce, 1024), "allreduce_hier_oneshot");
  EXPECT_STREQ(twoByFour.runs(CollKind::kAllReduce, 1 << 20), "allreduce_hier");
  EXPECT_STREQ(twoByFour.runs(CollKind::kAllGather, 1 << 16), "allgather_hier");
  EXPECT_STREQ(twoByFour.runs(CollKind::kReduceScatter, 1 << 16), "reducescatter_hier");
  // Integer ncclAvg divides once after the whole sum: the one-step variant folds last and can;
  // the pipelined one ends with NCCL's sums and cannot, nor can ReduceScatter.
  EXPECT_STREQ(twoByFour.runs(CollKind::kAllReduce, 1024, ncclInt32, ncclAvg), "allreduce_hier_oneshot");
  EXPECT_STREQ(twoByFour.runs(CollKind::kAllReduce, 1 << 20, ncclInt32, ncclAvg), "nccl");
  EXPECT_STREQ(twoByFour.runs(CollKind::kReduceScatter, 1024, ncclInt32, ncclAvg), "nccl");
  EXPECT_STREQ(twoByFour.runs(CollKind::kAllReduce, 1 << 20, ncclFloat32, ncclAvg), "allreduce_hier");
  // fp8 ncclAvg is left to NCCL everywhere, as on one node.
  EXPECT_STREQ(twoByFour.runs(CollKind::kAllReduce, 1024, ncclFloat8e4m3, ncclAvg), "nccl");
}

TEST(HierarchySelection, BuiltInRowsAcrossNodesAreArmedOnlyWhenAskedFor) {
  Described honest(8, 2, builtinSelectionTable(), /*armUnmeasured=*/false);
  EXPECT_TRUE(honest.selector->leftOutUnmeasured());
  EXPECT_FALSE(honest.selector->spansNodes());  // set-up then makes no rails
  EXPECT_STREQ(honest.runs(CollKind::kAllReduce, 1024), "nccl");
  EXPECT_STREQ(honest.runs(CollKind::kAllReduce, 1 << 20), "nccl");
  static char buffer[16];
  EXPECT_EQ(honest.selector
                ->choose(CollCall{CollKind::kAllGather, buffer, buffer, 1 << 16, ncclFloat32, ncclSum, 0, nullptr,
                                  nullptr},
                         honest.ctx)
                .reason,
            reason::kUnmeasured);
}

// hopper-2gpu-nvlink.xml is measured on one node (2 x H200) and carries model bands for two nodes
// in a <group measured="no">: the first stay armed, the second forward unless asked for.
TEST(HierarchySelection, UnmeasuredRowsAcrossNodesOfAMeasuredFileForward) {
  TopologyDescription d;
  std::string error;
  ASSERT_TRUE(parseTopologyFile(FLASHCCL_SOURCE_DIR "/topologies/hopper-2gpu-nvlink.xml", &d, &error)) << error;
  ASSERT_FALSE(d.table.unmeasured);

  Described oneNode(2, 1, d.table, /*armUnmeasured=*/false);
  EXPECT_FALSE(oneNode.selector->leftOutUnmeasured());
  EXPECT_STREQ(oneNode.runs(CollKind::kAllReduce, 1024), "allreduce_oneshot");
  EXPECT_STREQ(oneNode.runs(CollKind::kAllGather, 1024), "allgather_direct");

  Described twoNodes(4, 2, d.table, /*armUnmeasured=*/false);
  EXPECT_TRUE(twoNodes.selector->leftOutUnmeasured());
  EXPECT_FALSE(twoNodes.selector->spansNodes());
  const Plan plan = twoNodes.selector->choose(allreduce(1 << 20), twoNodes.ctx);  // 4 MiB: allreduce_hier's band
  EXPECT_EQ(plan.algorithm, nullptr);
  EXPECT_EQ(plan.reason, reason::kUnmeasured);
  ASSERT_NE(plan.row, nullptr);
  EXPECT_EQ(plan.row->algorithm, "allreduce_hier");
  EXPECT_NE(twoNodes.selector->describe().find("not measured here: allreduce_hier"), std::string::npos)
      << twoNodes.selector->describe();
  // The rows that name NCCL say so, as before.
  EXPECT_EQ(twoNodes.selector->choose(allreduce(16), twoNodes.ctx).reason, reason::kForcedNccl);

  Described armed(4, 2, d.table, /*armUnmeasured=*/true);
  EXPECT_FALSE(armed.selector->leftOutUnmeasured());
  EXPECT_TRUE(armed.selector->spansNodes());
  EXPECT_STREQ(armed.runs(CollKind::kAllReduce, 1 << 20), "allreduce_hier");
  // Ranks that differ in FLASHCCL_UNMEASURED differ in selection: set-up compares fingerprints.
  EXPECT_NE(armed.selector->fingerprint(), twoNodes.selector->fingerprint());
}

TEST(HierarchySelection, OneNodeKernelsNeverRunAcrossNodes) {
  // Peer memory across nodes is one node's: the one-node kernels refuse it even when forced.
  Described twoByTwo(4, 2);
  std::string warnings;
  auto forced = Selector::build(builtinSelectionTable(), "allreduce_oneshot", 4, 2, resolveAlgorithm, &warnings);
  EXPECT_NE(warnings.find("runs inside one node"), std::string::npos) << warnings;
  EXPECT_STREQ(twoByTwo.runs(CollKind::kAllReduce, 16), "allreduce_hier_oneshot");
  const Algorithm* oneshot = findBuiltinAlgorithm("allreduce_oneshot");
  static char buffer[16];
  EXPECT_FALSE(oneshot->supports(CollCall{CollKind::kAllReduce, buffer, buffer, 16, ncclFloat32, ncclSum, 0, nullptr,
                                          nullptr},
                                 twoByTwo.ctx));
}

TEST(HierarchySelection, OneNodeHasNoHierarchy) {
  Described eight(8, 1);
  EXPECT_EQ(eight.ctx.hierarchy(), nullptr);
  EXPECT_STREQ(eight.runs(CollKind::kAllReduce, 1024), "allreduce_oneshot");
  const Algorithm* hier = findBuiltinAlgorithm("allreduce_hier");
  static char buffer[16];
  EXPECT_FALSE(hier->supports(CollCall{CollKind::kAllReduce, buffer, buffer, 1 << 20, ncclFloat32, ncclSum, 0,
                                       nullptr, nullptr},
                              eight.ctx));
}

TEST(HierarchySelection, AllGatherAndReduceScatterNeedNodeMajorRanks) {
  Described twoByTwo(4, 2);
  NodeLayout interleaved = *twoByTwo.ctx.hierarchy();
  interleaved.nodeMajor = false;
  twoByTwo.ctx.attachRails(NodeRails::describeOnly(interleaved, twoByTwo.ctx.hierarchy()->stagingBytes));
  EXPECT_STREQ(twoByTwo.runs(CollKind::kAllReduce, 1 << 20), "allreduce_hier");
  EXPECT_STREQ(twoByTwo.runs(CollKind::kAllGather, 1024), "nccl");
  EXPECT_STREQ(twoByTwo.runs(CollKind::kReduceScatter, 1024), "nccl");
}

TEST(HierarchySelection, MscclProgramsAreRefusedAcrossNodesNamingAStep) {
  std::string error;
  EXPECT_EQ(resolveAlgorithm("allreduce_ring--gpus_4-channels_1-proto_LL.xml", 4, 2, &error), nullptr);
  EXPECT_NE(error.find("the communicator spans 2 nodes"), std::string::npos) << error;
  // A ring over 4 GPUs on 2 nodes of 2 crosses between them; which step is named first does not
  // matter, only that it is one between the nodes.
  EXPECT_NE(error.find("(node 0)"), std::string::npos) << error;
  EXPECT_NE(error.find("(node 1)"), std::string::npos) << error;
  EXPECT_NE(error.find("runs MSCCL programs on one-node communicators only"), std::string::npos) << error;
  error.clear();
  EXPECT_NE(resolveAlgorithm("allreduce_ring--gpus_4-channels_1-proto_LL.xml", 4, 1, &error), nullptr) << error;
  // Through selection: the row is skipped with the reason, as any row the build cannot use.
  SelectionTable table;
  SelectionRow row = anyRow("allreduce_ring--gpus_4-channels_1-proto_LL.xml");
  table.rows = {row};
  std::string warnings;
  auto selector = Selector::build(table, "", 4, 2, resolveAlgorithm, &warnings);
  EXPECT_NE(warnings.find("spans 2 nodes"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("row skipped"), std::string::npos) << warnings;
  EXPECT_FALSE(selector->spansNodes());
}

}  // namespace
}  // namespace flashccl
