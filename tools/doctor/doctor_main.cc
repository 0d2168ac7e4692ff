// `flashccl doctor`: parse, run this node's checks, and either print them (one machine) or take
// part in a cluster run (every rank sends its report to rank 0, which prints the cluster).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <string>

#include "check_result.h"
#include "cluster_gather.h"
#include "cluster_launch.h"
#include "cluster_summary.h"
#include "doctor_options.h"
#include "expectations.h"
#include "node_checks.h"
#include "progress.h"
#include "report_format.h"
#include "subcommands.h"

namespace flashccl {

namespace {

using namespace doctor;

constexpr int kExitUsage = 2;

int usageError(const std::string& message) {
  std::fprintf(stderr, "flashccl doctor: %s\n", message.c_str());
  return kExitUsage;
}

bool writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "flashccl doctor: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  std::printf("wrote %s\n", path.c_str());
  return true;
}

// Ranks other than a node's local rank 0 leave the node to it and report only that they joined.
NodeReport idleReport(const ClusterRole& role) {
  NodeReport report;
  report.host = hostName();
  report.rank = role.rank;
  report.worldSize = role.worldSize;
  report.date = localDate();
  report.mode = "idle";
  report.machine = "local rank " + std::to_string(role.localRank) + ": the node's checks ran on local rank 0";
  return report;
}

int runAlone(const DoctorOptions& options, const NodeReport& report) {
  std::fputs(formatTable(report).c_str(), stdout);
  bool written = true;
  if (!options.jsonPath.empty()) written &= writeFile(options.jsonPath, reportToJson(report).dump(2) + "\n");
  if (!options.markdownPath.empty()) written &= writeFile(options.markdownPath, formatMarkdown(report));
  const int status = exitStatusFor(report);
  return status == 0 && !written ? 1 : status;
}

int runClusterRank(const ClusterRole& role, const DoctorOptions& options, const NodeReport& report) {
  std::string error;
  if (!sendReport(role.address, role.port, role.rank, reportToJson(report).dump(), options.clusterTimeoutSeconds, &error)) {
    std::fprintf(stderr, "flashccl doctor: rank %d cannot hand its report to rank 0 at %s:%d: %s\n",
                 role.rank, role.address.c_str(), role.port, error.c_str());
    return 1;
  }
  std::fprintf(stderr, "flashccl doctor: rank %d (%s): report sent to rank 0; this node: %s\n",
               role.rank, report.host.c_str(), verdictLine(report).c_str());
  return exitStatusFor(report) == 0 ? 0 : 1;
}

int runClusterRoot(const ClusterRole& role, const DoctorOptions& options, const NodeReport& own,
                   std::future<std::map<int, std::string>>* arrivals, std::vector<std::string>* problems) {
  std::fprintf(stderr, "flashccl doctor: rank 0 waiting for %d report(s)\n", role.worldSize - 1);
  const std::map<int, std::string> received = arrivals->get();
  ClusterReport cluster;
  cluster.worldSize = role.worldSize;
  cluster.problems = *problems;
  if (own.mode != "idle") cluster.nodes.push_back(own);
  for (const auto& entry : received) {
    NodeReport node;
    std::string error;
    nlohmann::json parsed = nlohmann::json::parse(entry.second, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !reportFromJson(parsed, &node, &error)) {
      cluster.problems.push_back("rank " + std::to_string(entry.first) + " sent an unreadable report" +
                                 (error.empty() ? "" : ": " + error));
      continue;
    }
    if (node.mode != "idle") cluster.nodes.push_back(node);
  }
  summarizeCluster(&cluster);
  std::fputs(formatClusterTable(cluster).c_str(), stdout);
  bool written = true;
  if (!options.jsonPath.empty()) {
    nlohmann::ordered_json json;
    json["tool"] = "flashccl doctor";
    json["world_size"] = cluster.worldSize;
    json["problems"] = cluster.problems;
    NodeReport summary;
    summary.checks = cluster.checks;
    json["cluster"] = reportToJson(summary)["checks"];
    json["exit_status"] = clusterExitStatus(cluster);
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    for (const NodeReport& node : cluster.nodes) nodes.push_back(reportToJson(node));
    json["nodes"] = nodes;
    written &= writeFile(options.jsonPath, json.dump(2) + "\n");
  }
  if (!options.markdownPath.empty()) written &= writeFile(options.markdownPath, formatClusterMarkdown(cluster));
  const int status = clusterExitStatus(cluster);
  return status == 0 && !written ? 1 : status;
}

}  // namespace

int doctorMain(int argc, char** argv) {
  const ParsedOptions parsed = parseDoctorOptions(argc, argv);
  if (parsed.result == ParsedOptions::Result::kHelp) {
    std::fputs(parsed.text.c_str(), stdout);
    return 0;
  }
  if (parsed.result == ParsedOptions::Result::kUsageError) return usageError(parsed.text);
  const DoctorOptions& options = parsed.options;

  Expectations expectations;
  std::string error;
  if (!options.expectPath.empty() && !loadExpectationFile(options.expectPath, &expectations, &error)) {
    return usageError("--expect " + error);
  }
  const ClusterRole role = detectClusterRole(environmentSnapshot(), options.rendezvous);
  if (!role.problem.empty()) return usageError(role.problem);

  // Rank 0 listens before it measures, and takes reports in the background while it does.
  ReportCollector collector;
  std::vector<std::string> problems;
  std::future<std::map<int, std::string>> arrivals;
  if (role.active && role.rank == 0) {
    if (!collector.listen(role.port, &error)) return usageError("rank 0: " + error);
    arrivals = std::async(std::launch::async, [&] {
      return collector.collect(role.worldSize, options.clusterTimeoutSeconds, &problems);
    });
  }

  Progress progress(stderr);
  NodeReport report = role.active && role.localRank != 0 ? idleReport(role)
                                                        : runNodeChecks(options, expectations, progress);
  report.rank = role.rank;
  report.worldSize = role.worldSize;
  if (!role.active) return runAlone(options, report);
  if (role.rank != 0) return runClusterRank(role, options, report);
  if (report.mode != "idle") std::fputs(formatTable(report).c_str(), stderr);
  return runClusterRoot(role, options, report, &arrivals, &problems);
}

}  // namespace flashccl
