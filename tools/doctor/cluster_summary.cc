#include "cluster_summary.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "report_format.h"
#include "thresholds.h"

namespace flashccl {
namespace doctor {

namespace {

const char* const kCluster = "cluster";

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// Rates are better high, latencies low; other units are not compared across nodes.
bool comparable(const CheckResult& check) {
  return std::isfinite(check.value) && check.value > 0 &&
         (check.unit == "GB/s" || check.unit == "Gb/s" || check.unit == "us");
}

struct NodeScore {
  const NodeReport* node = nullptr;
  double ratio = 1.0;  // worst metric against the cluster median (1 = typical, < 1 slower)
  std::string metric;  // which measurement, with both numbers
};

// The worst metric of each node against the median over nodes of the same measurement.
std::vector<NodeScore> scoreNodes(const ClusterReport& report) {
  std::map<std::string, std::vector<double>> byKey;
  auto key = [](const CheckResult& c) { return c.family + "/" + c.check + "/" + c.subject; };
  for (const NodeReport& node : report.nodes) {
    for (const CheckResult& check : node.checks) {
      if (comparable(check)) byKey[key(check)].push_back(check.value);
    }
  }
  std::vector<NodeScore> scores;
  for (const NodeReport& node : report.nodes) {
    NodeScore score;
    score.node = &node;
    for (const CheckResult& check : node.checks) {
      if (!comparable(check)) continue;
      const std::vector<double>& values = byKey[key(check)];
      if (values.size() < 2) continue;
      const double middle = median(values);
      const double ratio = check.unit == "us" ? middle / check.value : check.value / middle;
      if (ratio < score.ratio) {
        score.ratio = ratio;
        score.metric = check.family + "/" + check.check + " " + check.subject + ": " +
                       formatNumber(check.value, 1) + " " + check.unit + " against the cluster median " +
                       formatNumber(middle, 1) + " " + check.unit;
      }
    }
    scores.push_back(score);
  }
  return scores;
}

// Across nodes, the check (family/check) with the lowest value, and the node it is on.
const CheckResult* lowest(const ClusterReport& report, const std::string& family,
                          const std::string& check, const NodeReport** on) {
  const CheckResult* best = nullptr;
  for (const NodeReport& node : report.nodes) {
    for (const CheckResult& c : node.checks) {
      if (c.family != family || c.check != check || !std::isfinite(c.value)) continue;
      if (best == nullptr || c.value < best->value) {
        best = &c;
        *on = &node;
      }
    }
  }
  return best;
}

}  // namespace

std::string nodeName(const ClusterReport& report, const NodeReport& node) {
  const int sameHost = int(std::count_if(report.nodes.begin(), report.nodes.end(),
                                         [&](const NodeReport& n) { return n.host == node.host; }));
  return sameHost > 1 ? node.host + " (rank " + std::to_string(node.rank) + ")" : node.host;
}

void summarizeCluster(ClusterReport* report) {
  std::vector<CheckResult>& checks = report->checks;
  checks.clear();
  std::string nodes = std::to_string(report->nodes.size()) + " node(s) reported";
  checks.push_back(makeCheck(kCluster, "nodes", "cluster",
                             report->problems.empty() ? Verdict::kPass : Verdict::kFail,
                             report->problems.empty() ? nodes : nodes + "; " + report->problems.front() +
                                 (report->problems.size() > 1 ? " (+" + std::to_string(report->problems.size() - 1) + " more)" : ""),
                             "every rank reports",
                             "a rank that never reports is a node that hangs, crashed or cannot "
                             "reach rank 0: look at it first"));
  const std::vector<NodeScore> scores = scoreNodes(*report);
  const NodeScore* slowest = nullptr;
  for (const NodeScore& score : scores) {
    if (!score.metric.empty() && (slowest == nullptr || score.ratio < slowest->ratio)) slowest = &score;
  }
  if (slowest == nullptr) {
    checks.push_back(skipCheck(kCluster, "slowest-node", "cluster",
                               "fewer than two nodes measured the same thing"));
  } else {
    const bool outlier = slowest->ratio < threshold::kPairMedianRatio;
    checks.push_back(makeCheck(kCluster, "slowest-node", nodeName(*report, *slowest->node),
                               outlier ? Verdict::kWarn : Verdict::kPass, slowest->metric,
                               "within " + formatNumber(threshold::kPairMedianRatio * 100, 0) +
                                   "% of the cluster median",
                               outlier ? "this node holds back every job that spans it: its own "
                                         "checks say where"
                                       : "the node furthest below the median on any measurement"));
  }
  struct Named {
    const char* check;
    const char* family;
    const char* metric;
    const char* why;
  };
  const Named named[] = {
      {"slowest-pair", kFamilyPairs, "copy-engine", "the slowest GPU pair of the cluster bounds "
                                                    "every collective over that node's GPUs"},
      {"slowest-nic", kFamilyNics, "port-rate", "the slowest rail bounds every collective striped "
                                                "over the rails"},
  };
  for (const Named& n : named) {
    const NodeReport* on = nullptr;
    const CheckResult* found = lowest(*report, n.family, n.metric, &on);
    if (found == nullptr) {
      checks.push_back(skipCheck(kCluster, n.check, "cluster",
                                 std::string("no node measured ") + n.family + "/" + n.metric));
      continue;
    }
    checks.push_back(makeCheck(kCluster, n.check, nodeName(*report, *on) + ": " + found->subject,
                               found->verdict == Verdict::kSkip ? Verdict::kPass : found->verdict,
                               found->measured, found->expected, n.why));
  }
}

int clusterExitStatus(const ClusterReport& report) {
  if (!report.problems.empty()) return 1;
  for (const NodeReport& node : report.nodes) {
    if (exitStatusFor(node) != 0) return 1;
  }
  for (const CheckResult& check : report.checks) {
    if (check.verdict == Verdict::kFail) return 1;
  }
  return 0;
}

std::string formatClusterTable(const ClusterReport& report) {
  std::string out = "flashccl doctor: cluster of " + std::to_string(report.worldSize) + " ranks, " +
                    std::to_string(report.nodes.size()) + " node(s)\n\n";
  size_t width = 4;
  for (const NodeReport& node : report.nodes) width = std::max(width, nodeName(report, node).size());
  auto padded = [](const std::string& text, size_t w) {
    return text.size() >= w ? text + " " : text + std::string(w - text.size(), ' ');
  };
  out += padded("node", width + 1) + padded("rank", 6) + padded("verdict", 9) + "PASS WARN FAIL SKIP  machine\n";
  for (const NodeReport& node : report.nodes) {
    const std::string verdict = node.gpuProblem.empty() ? verdictName(node.overall()) : "NO GPU";
    char counts[64];
    std::snprintf(counts, sizeof(counts), "%4d %4d %4d %4d  ", node.count(Verdict::kPass),
                  node.count(Verdict::kWarn), node.count(Verdict::kFail), node.count(Verdict::kSkip));
    out += padded(nodeName(report, node), width + 1) + padded(std::to_string(node.rank), 6) +
           padded(verdict, 9) + counts + node.machine + "\n";
  }
  out += "\nnot PASS on some node:\n";
  bool any = false;
  for (const NodeReport& node : report.nodes) {
    if (!node.gpuProblem.empty()) {
      out += "  " + nodeName(report, node) + ": " + node.gpuProblem + "\n";
      any = true;
    }
    for (const CheckResult& check : node.checks) {
      if (check.verdict != Verdict::kWarn && check.verdict != Verdict::kFail) continue;
      out += "  " + std::string(verdictName(check.verdict)) + "  " + nodeName(report, node) + "  " +
             check.family + "/" + check.check + "  " + check.subject + ": " + check.measured +
             (check.expected.empty() || check.expected == "-" ? "" : " (expected " + check.expected + ")") + "\n";
      any = true;
    }
  }
  if (!any) out += "  nothing\n";
  out += "\n";
  for (const CheckResult& check : report.checks) {
    out += padded(verdictName(check.verdict), 6) + padded(check.check, 14) + check.subject + ": " +
           check.measured + "\n";
  }
  NodeReport summary;
  summary.checks = report.checks;
  for (const NodeReport& node : report.nodes) {
    summary.checks.insert(summary.checks.end(), node.checks.begin(), node.checks.end());
  }
  out += "\ncluster: " + verdictLine(summary) + (clusterExitStatus(report) ? " (exit 1)" : "") + "\n";
  return out;
}

std::string formatClusterMarkdown(const ClusterReport& report) {
  std::string md = "# flashccl doctor: cluster of " + std::to_string(report.worldSize) + " ranks\n\n";
  md += "| verdict | check | subject | measured | expected |\n|---|---|---|---|---|\n";
  for (const CheckResult& check : report.checks) {
    md += "| " + std::string(verdictName(check.verdict)) + " | " + check.check + " | " +
          markdownCell(check.subject) + " | " + markdownCell(check.measured) + " | " +
          markdownCell(check.expected) + " |\n";
  }
  md += "\n| node | rank | verdict | PASS | WARN | FAIL | SKIP | machine |\n|---|---:|---|---:|---:|---:|---:|---|\n";
  for (const NodeReport& node : report.nodes) {
    md += "| " + markdownCell(nodeName(report, node)) + " | " + std::to_string(node.rank) + " | " +
          (node.gpuProblem.empty() ? verdictName(node.overall()) : "NO GPU") + " | " +
          std::to_string(node.count(Verdict::kPass)) + " | " + std::to_string(node.count(Verdict::kWarn)) +
          " | " + std::to_string(node.count(Verdict::kFail)) + " | " +
          std::to_string(node.count(Verdict::kSkip)) + " | " + markdownCell(node.machine) + " |\n";
  }
  for (const NodeReport& node : report.nodes) md += "\n" + formatMarkdown(node);
  return md;
}

}  // namespace doctor
}  // namespace flashccl
