// Rank 0's view of a cluster run: one row per node, the checks that are not PASS anywhere, and
// the slowest node, GPU pair and NIC, each named with the number that makes it the slowest.
#pragma once

#include <string>
#include <vector>

#include "check_result.h"

namespace flashccl {
namespace doctor {

struct ClusterReport {
  std::vector<NodeReport> nodes;      // one per node (the local-rank-0 report), rank order
  std::vector<std::string> problems;  // ranks missing, bad messages
  std::vector<CheckResult> checks;    // family "cluster": nodes, slowest-node, -pair, -nic
  int worldSize = 1;
};

// Fills report->checks from report->nodes and report->problems.
void summarizeCluster(ClusterReport* report);
std::string formatClusterTable(const ClusterReport& report);
std::string formatClusterMarkdown(const ClusterReport& report);
// 0 when every node passed (SKIP and WARN allowed), 1 on any FAIL, missing rank or node
// without a GPU.
int clusterExitStatus(const ClusterReport& report);

// "host-a" or, when several nodes share a host name (tests, containers), "host-a (rank 8)".
std::string nodeName(const ClusterReport& report, const NodeReport& node);

}  // namespace doctor
}  // namespace flashccl
