// How a communicator's ranks sit on nodes, from the node identity every rank published at set-up
// (host_identity.h: FLASHCCL_NODE_ID, else the OS instance). Every rank computes it from the same
// list and so gets the same answer: routing never depends on which rank looks (docs/design.md,
// "Routing").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashccl {

struct NodeGrouping {
  int nnodes = 0;
  std::vector<int> nodeOf;                    // per world rank: its node, numbered by lowest rank
  std::vector<int> localRankOf;               // per world rank: its index inside its node
  std::vector<std::vector<int>> ranksOfNode;  // per node: its world ranks, ascending

  int nranks() const { return static_cast<int>(nodeOf.size()); }
  // Ranks per node when every node has the same number, else 0.
  int ranksPerNode() const;
  // World rank == node * ranksPerNode() + local rank for every rank (how launchers number ranks).
  // AllGather and ReduceScatter across nodes place blocks by world rank and need it.
  bool nodeMajor() const;
};

NodeGrouping groupRanksByNode(const std::vector<uint64_t>& nodeKeys);

// Why our kernels cannot run on a communicator grouped like this, or "" when they can: one node
// of 2 to maxRanksPerNode ranks (the NVLink path), or several nodes with the same number of ranks
// each, 2 to maxRanksPerNode (the hierarchical algorithms: our kernels inside every node, NCCL
// between nodes). Every rank says the same words.
std::string whyNodesCannotArm(const NodeGrouping& grouping, int maxRanksPerNode);

// The inter-node communicator ("rail") of one rank: the ranks with its local index, one per node,
// in node order. ncclCommSplit(color, key) makes it on every rank at once.
struct RailPlan {
  int color = 0;             // the local rank: one rail per local index
  int key = 0;               // the node: rail rank == node index
  std::vector<int> members;  // world ranks of the rail, in rail-rank order
};

RailPlan railPlanFor(const NodeGrouping& grouping, int rank);

}  // namespace flashccl
