// Nodes and rails at set-up: how ranks are grouped by node identity, when our kernels may arm on
// such a grouping (and the words every rank uses when they may not), and the rails ncclCommSplit
// makes. All pure functions of what every rank publishes, so every rank reaches the same verdict.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "topo/host_identity.h"
#include "topo/node_grouping.h"

namespace flashccl {
namespace {

constexpr uint64_t kA = 0xa, kB = 0xb, kC = 0xc;
constexpr int kMaxPerNode = 8;

TEST(NodeGrouping, RanksOfOneKeyFormANodeNumberedByLowestRank) {
  const NodeGrouping g = groupRanksByNode({kB, kB, kA, kA});
  EXPECT_EQ(g.nnodes, 2);
  EXPECT_EQ(g.nodeOf, (std::vector<int>{0, 0, 1, 1}));  // node 0 is rank 0's, whatever its key
  EXPECT_EQ(g.localRankOf, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(g.ranksOfNode, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(g.ranksPerNode(), 2);
  EXPECT_TRUE(g.nodeMajor());
  EXPECT_EQ(whyNodesCannotArm(g, kMaxPerNode), "");
}

TEST(NodeGrouping, InterleavedRanksAreEvenButNotNodeMajor) {
  const NodeGrouping g = groupRanksByNode({kA, kB, kA, kB, kA, kB});
  EXPECT_EQ(g.nnodes, 2);
  EXPECT_EQ(g.nodeOf, (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(g.localRankOf, (std::vector<int>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(g.ranksPerNode(), 3);
  EXPECT_FALSE(g.nodeMajor());
  EXPECT_EQ(whyNodesCannotArm(g, kMaxPerNode), "");  // AllReduce across nodes does not need node-major ranks
}

TEST(NodeGrouping, OneNodeArmsFromTwoToEightRanks) {
  for (int n = 1; n <= 9; ++n) {
    const NodeGrouping g = groupRanksByNode(std::vector<uint64_t>(n, kA));
    EXPECT_EQ(g.nnodes, 1);
    EXPECT_TRUE(g.nodeMajor());
    const std::string why = whyNodesCannotArm(g, kMaxPerNode);
    if (n >= 2 && n <= 8) {
      EXPECT_EQ(why, "") << n;
    } else {
      EXPECT_EQ(why, "the NVLink path serves 2 to 8 ranks on a node; this communicator has " + std::to_string(n));
    }
  }
}

TEST(NodeGrouping, UnevenNodesFallBackWithTheLayout) {
  const NodeGrouping g = groupRanksByNode({kA, kA, kB});
  EXPECT_EQ(g.ranksPerNode(), 0);
  EXPECT_FALSE(g.nodeMajor());
  EXPECT_EQ(whyNodesCannotArm(g, kMaxPerNode),
            "its 2 nodes differ in size (node 0 has 2 ranks (0, 1), node 1 has 1 (2)); the hierarchical algorithms "
            "need the same number of ranks on every node");
}

TEST(NodeGrouping, OneRankPerNodeLeavesNothingForNvlink) {
  const NodeGrouping g = groupRanksByNode({kA, kB, kC});
  EXPECT_EQ(g.ranksPerNode(), 1);
  EXPECT_EQ(whyNodesCannotArm(g, kMaxPerNode), "one rank on each of its 3 nodes: nothing for the NVLink kernels to do between nodes");
}

TEST(NodeGrouping, TooManyRanksPerNode) {
  std::vector<uint64_t> keys(9, kA);
  keys.insert(keys.end(), 9, kB);
  EXPECT_EQ(whyNodesCannotArm(groupRanksByNode(keys), kMaxPerNode),
            "9 ranks on each of its 2 nodes; the NVLink path serves 2 to 8 ranks on a node");
}

TEST(NodeGrouping, LongLayoutsAreCutShort) {
  std::vector<uint64_t> keys;
  for (uint64_t node = 0; node < 6; ++node) keys.insert(keys.end(), node == 0 ? 10 : 2, node);
  const std::string why = whyNodesCannotArm(groupRanksByNode(keys), kMaxPerNode);
  EXPECT_NE(why.find("node 0 has 10 ranks (0, 1, 2, 3, 4, 5, 6, 7, ...)"), std::string::npos) << why;
  EXPECT_NE(why.find("node 3 has 2 (14, 15), ..."), std::string::npos) << why;
}

TEST(RailPlan, OneRailPerLocalIndexRankedByNode) {
  const NodeGrouping g = groupRanksByNode({kA, kA, kB, kB});
  const RailPlan plan = railPlanFor(g, 3);
  EXPECT_EQ(plan.color, 1);
  EXPECT_EQ(plan.key, 1);
  EXPECT_EQ(plan.members, (std::vector<int>{1, 3}));
  EXPECT_EQ(railPlanFor(g, 0).members, (std::vector<int>{0, 2}));
  // Every rank of a rail computes the same members, in rail-rank (node) order.
  for (int r = 0; r < 4; ++r) {
    const RailPlan mine = railPlanFor(g, r);
    for (int member : mine.members) EXPECT_EQ(railPlanFor(g, member).members, mine.members);
    EXPECT_EQ(mine.members[mine.key], r);
  }
}

TEST(RailPlan, InterleavedRanks) {
  const NodeGrouping g = groupRanksByNode({kA, kB, kA, kB});
  const RailPlan plan = railPlanFor(g, 2);
  EXPECT_EQ(plan.color, 1);  // rank 2 is the second rank of node 0
  EXPECT_EQ(plan.key, 0);
  EXPECT_EQ(plan.members, (std::vector<int>{2, 3}));
}

TEST(NodeIdentity, OverrideGroupsProcessesAndNeverMatchesAHost) {
  EXPECT_EQ(nodeIdentity(""), hostIdentity());
  EXPECT_EQ(nodeIdentity("node-a"), nodeIdentity("node-a"));
  EXPECT_NE(nodeIdentity("node-a"), nodeIdentity("node-b"));
  EXPECT_NE(nodeIdentity("node-a"), hostIdentity());
}

}  // namespace
}  // namespace flashccl
