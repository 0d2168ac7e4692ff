#include "topo/node_grouping.h"

#include <map>

namespace flashccl {

namespace {

// "node 0 has 2 ranks (0, 1), node 1 has 1 (2)": the first few nodes, enough to see the layout.
std::string describeNodes(const NodeGrouping& g) {
  constexpr int kNodesShown = 4;
  constexpr size_t kRanksShown = 8;
  std::string text;
  for (int n = 0; n < g.nnodes && n < kNodesShown; ++n) {
    const std::vector<int>& ranks = g.ranksOfNode[n];
    const std::string unit = n > 0 ? "" : (ranks.size() == 1 ? " rank" : " ranks");
    text += (n > 0 ? ", node " : "node ") + std::to_string(n) + " has " + std::to_string(ranks.size()) + unit + " (";
    for (size_t i = 0; i < ranks.size() && i < kRanksShown; ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
    text += ranks.size() > kRanksShown ? ", ...)" : ")";
  }
  if (g.nnodes > kNodesShown) text += ", ...";
  return text;
}

}  // namespace

int NodeGrouping::ranksPerNode() const {
  if (nnodes == 0) return 0;
  const size_t size = ranksOfNode[0].size();
  for (const std::vector<int>& ranks : ranksOfNode) {
    if (ranks.size() != size) return 0;
  }
  return static_cast<int>(size);
}

bool NodeGrouping::nodeMajor() const {
  const int perNode = ranksPerNode();
  if (perNode == 0) return false;
  for (int r = 0; r < nranks(); ++r) {
    if (r != nodeOf[r] * perNode + localRankOf[r]) return false;
  }
  return true;
}

NodeGrouping groupRanksByNode(const std::vector<uint64_t>& nodeKeys) {
  NodeGrouping g;
  std::map<uint64_t, int> nodeOfKey;
  g.nodeOf.resize(nodeKeys.size());
  g.localRankOf.resize(nodeKeys.size());
  for (size_t r = 0; r < nodeKeys.size(); ++r) {
    auto found = nodeOfKey.emplace(nodeKeys[r], g.nnodes);
    if (found.second) {
      ++g.nnodes;
      g.ranksOfNode.emplace_back();
    }
    const int node = found.first->second;
    g.nodeOf[r] = node;
    g.localRankOf[r] = static_cast<int>(g.ranksOfNode[node].size());
    g.ranksOfNode[node].push_back(static_cast<int>(r));
  }
  return g;
}

std::string whyNodesCannotArm(const NodeGrouping& g, int maxRanksPerNode) {
  const std::string limit = "2 to " + std::to_string(maxRanksPerNode);
  if (g.nnodes <= 1) {
    const int n = g.nranks();
    if (n >= 2 && n <= maxRanksPerNode) return "";
    return "the NVLink path serves " + limit + " ranks on a node; this communicator has " + std::to_string(n);
  }
  const int perNode = g.ranksPerNode();
  if (perNode == 0) {
    return "its " + std::to_string(g.nnodes) + " nodes differ in size (" + describeNodes(g) +
           "); the hierarchical algorithms need the same number of ranks on every node";
  }
  if (perNode == 1) {
    return "one rank on each of its " + std::to_string(g.nnodes) +
           " nodes: nothing for the NVLink kernels to do between nodes";
  }
  if (perNode > maxRanksPerNode) {
    return std::to_string(perNode) + " ranks on each of its " + std::to_string(g.nnodes) +
           " nodes; the NVLink path serves " + limit + " ranks on a node";
  }
  return "";
}

RailPlan railPlanFor(const NodeGrouping& g, int rank) {
  RailPlan plan;
  plan.color = g.localRankOf[rank];
  plan.key = g.nodeOf[rank];
  for (const std::vector<int>& ranks : g.ranksOfNode) {
    if (plan.color < static_cast<int>(ranks.size())) plan.members.push_back(ranks[plan.color]);
  }
  return plan;
}

}  // namespace flashccl
