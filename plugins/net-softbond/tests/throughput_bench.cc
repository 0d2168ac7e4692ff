// Throughput of one rail against two, between two network namespaces (needs root):
//
//   softbond_throughput_bench OUT_PREFIX [--commit SHA] [--repeats N] [--gigabytes G]
//
// Writes OUT_PREFIX.md and OUT_PREFIX.json. Each configuration moves G GiB in 4 MiB messages (8 in
// flight) from one namespace to the other with the received bytes unchecked (--no-check: the
// figure is the transport's); the median of N runs is reported. Two settings: veth links as they
// are (bound by the CPU, which both ends share), and each rail limited to 1 Gbit/s with tbf (a
// NIC's line rate, the case bonding is for).
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "peer_pair.h"
#include "two_rail_network.h"

using namespace softbond_test;

namespace {

struct Measurement {
  std::string setting;
  int rails;
  std::vector<double> gbPerSecond;
  double median() const {
    std::vector<double> sorted = gbPerSecond;
    std::sort(sorted.begin(), sorted.end());
    return sorted.empty() ? 0 : sorted[sorted.size() / 2];
  }
};

std::string firstLine(const std::string& command) {
  std::string output;
  TwoRailNetwork::run(command, &output);
  return output.substr(0, output.find('\n'));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: softbond_throughput_bench OUT_PREFIX [--commit SHA] [--repeats N] [--gigabytes G]\n");
    return 2;
  }
  const std::string prefix = argv[1];
  std::string commit = "unknown";
  int repeats = 3;
  double gigabytes = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string arg = argv[i];
    if (arg == "--commit") commit = argv[i + 1];
    else if (arg == "--repeats") repeats = atoi(argv[i + 1]);
    else if (arg == "--gigabytes") gigabytes = atof(argv[i + 1]);
  }
  std::string reason = TwoRailNetwork::unavailableReason();
  if (!reason.empty()) {
    fprintf(stderr, "softbond_throughput_bench: %s\n", reason.c_str());
    return 2;
  }
  const size_t count = static_cast<size_t>(gigabytes * 1024 / 4);
  const std::vector<std::string> plan = {"--sizes", "4M", "--count", std::to_string(count), "--no-check"};
  std::vector<Measurement> results;
  for (const std::string& setting : {std::string("veth"), std::string("1gbit")}) {
    for (int rails : {1, 2}) {
      Measurement measurement{setting, rails, {}};
      for (int run = 0; run < repeats; ++run) {
        TwoRailNetwork network;
        std::string error;
        if (!network.create(&error) || (setting == "1gbit" && (!network.limitRate(0, "1gbit", &error) ||
                                                               !network.limitRate(1, "1gbit", &error)))) {
          fprintf(stderr, "network set-up failed: %s\n", error.c_str());
          return 1;
        }
        std::vector<int> which = rails == 1 ? std::vector<int>{0} : std::vector<int>{0, 1};
        PeerSide receiver{network.inside('B'), {{"FLASHCCL_SOFTBOND_RAILS", network.rails('B', which)}}};
        PeerSide sender{network.inside('A'), {{"FLASHCCL_SOFTBOND_RAILS", network.rails('A', which)}}};
        PairOutcome outcome = runPeerPair(receiver, sender, plan, {}, 300);
        if (!outcome.bothOk()) {
          fprintf(stderr, "run failed:\n%s\n", outcome.describe().c_str());
          return 1;
        }
        double seconds = PairOutcome::field(outcome.receiverResult, "seconds");
        double bytes = PairOutcome::field(outcome.receiverResult, "bytes");
        measurement.gbPerSecond.push_back(bytes / seconds / 1e9);
        printf("%-6s %d rail(s) run %d: %.3f GB/s\n", setting.c_str(), rails, run + 1, measurement.gbPerSecond.back());
        fflush(stdout);
      }
      results.push_back(measurement);
    }
  }

  char date[64];
  time_t now = time(nullptr);
  strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S+00:00", gmtime(&now));
  utsname host;
  uname(&host);
  const std::string cpu = firstLine("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'");
  const std::string cores = firstLine("nproc");
  const std::string load = firstLine("cut -d' ' -f1-3 /proc/loadavg");
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);

  std::ofstream json(prefix + ".json");
  json << "{\n  \"date\": \"" << date << "\",\n  \"machine\": {\"cpu\": \"" << cpu << "\", \"cores\": " << cores
       << ", \"kernel\": \"" << host.release << "\", \"load_average_at_end\": \"" << load << "\"},\n"
       << "  \"commit\": \"" << commit << "\",\n  \"command\": \"" << command << "\",\n"
       << "  \"transfer\": {\"message_bytes\": 4194304, \"messages\": " << count << ", \"in_flight\": 8},\n"
       << "  \"results\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    json << "    {\"links\": \"" << results[i].setting << "\", \"rails\": " << results[i].rails
         << ", \"median_gb_per_s\": " << results[i].median() << ", \"runs_gb_per_s\": [";
    for (size_t r = 0; r < results[i].gbPerSecond.size(); ++r) json << (r ? ", " : "") << results[i].gbPerSecond[r];
    json << "]}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  json << "  ]\n}\n";

  std::ofstream md(prefix + ".md");
  md << "# softbond net plugin: throughput of two rails vs one (CPU machine, network namespaces)\n\n"
     << "| | |\n|---|---|\n| date | " << date << " |\n| machine | " << cpu << ", " << cores << " cores, kernel "
     << host.release << " (load average at the end: " << load << ") |\n| commit | " << commit << " |\n"
     << "| command | `" << command << "` |\n"
     << "| transfer | " << gigabytes << " GiB (" << count << " messages of 4 MiB), 8 in flight, A -> B, "
     << "received bytes not checked; GB/s = 10^9 bytes/s; "
     << "median of " << repeats << " runs |\n\n"
     << "| links | 1 rail GB/s | 2 rails GB/s | 2 rails / 1 rail | runs, 1 rail | runs, 2 rails |\n"
     << "|---|---:|---:|---:|---|---|\n";
  auto runs = [](const Measurement& m) {
    std::string text;
    char value[32];
    for (double v : m.gbPerSecond) snprintf(value, sizeof(value), "%s%.3f", text.empty() ? "" : ", ", v), text += value;
    return text;
  };
  for (size_t i = 0; i + 1 < results.size(); i += 2) {
    char row[256];
    snprintf(row, sizeof(row), "| %s | %.3f | %.3f | %.2f | ",
             results[i].setting == "veth" ? "veth, no limit" : "veth, each rail limited to 1 Gbit/s (tbf)",
             results[i].median(), results[i + 1].median(), results[i + 1].median() / results[i].median());
    md << row << runs(results[i]) << " | " << runs(results[i + 1]) << " |\n";
  }
  md << "\nBoth namespaces share the machine's cores, and the kernel's veth copies, TCP and the two "
        "peers' progress threads all run on them: with no limit the links are as fast as the CPU "
        "lets them be, so a second rail adds sockets and threads to the same cores rather than "
        "bandwidth, and the figure moves with whatever else the machine runs (see the load "
        "average). With each rail held to a NIC-like 1 Gbit/s, the links are the bottleneck, which "
        "is the case bonding is for.\n";
  printf("wrote %s.md and %s.json\n", prefix.c_str(), prefix.c_str());
  return 0;
}
