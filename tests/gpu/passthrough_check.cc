// flashccl_passthrough_check: issue 2's GPU pass-through check. Two or more ranks, as threads of
// one process and as separate processes, eagerly and under CUDA graph capture, run every NCCL
// collective and send/recv through flashccl (the nccl* functions libflashccl.so exports) and the
// same call through the real NCCL (flashcclRealFunction) on the same communicator, and compare
// the outputs bitwise. Run with FLASHCCL_DISABLE=1 for the pass-through check proper.
//
// This process is only a supervisor: every CUDA and NCCL call happens in forked workers (see
// passthrough_supervisor.h), so it can fork for the processes mode, enforce time-outs and always
// print a summary. Exit status: 0 when every case was identical (or with fewer than 2 GPUs,
// skipped), 1 otherwise, 2 for a bad command line.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "passthrough_cases.h"
#include "passthrough_options.h"
#include "passthrough_record.h"
#include "passthrough_results.h"
#include "passthrough_supervisor.h"
#include "passthrough_unique_id_pipes.h"
#include "passthrough_workers.h"

namespace flashccl_gpu_test::passthrough {
namespace {

constexpr double kProbeTimeoutS = 60;

struct ModeSpec {
  std::string name;
  bool procs;
  bool graph;
};

std::vector<ModeSpec> selectedModes(const Options& o) {
  std::vector<ModeSpec> modes;
  for (bool procs : {false, true}) {
    if (!(procs ? o.procs : o.threads)) continue;
    for (bool graph : {false, true}) {
      if (!(graph ? o.graph : o.eager)) continue;
      modes.push_back({std::string(procs ? "procs" : "threads") + "/" + (graph ? "graph" : "eager"), procs, graph});
    }
  }
  return modes;
}

// Device count and versions, asked in a worker: even cudaGetDeviceCount initialises CUDA, after
// which this process could not fork rank processes that use the GPU.
std::map<std::string, std::string> probe(std::string* error) {
  std::map<std::string, std::string> facts;
  Supervisor supervisor;
  *error = supervisor.start("probe", probeWorker);
  if (!error->empty()) return facts;
  const SupervisedRun run = supervisor.wait(kProbeTimeoutS, [&](const std::string& line) {
    Message m;
    if (parseMessage(line, &m) && m.kind == Message::Kind::kFact) facts[m.key] = m.text;
  });
  if (!run.failures.empty()) *error = "the probe failed: " + run.failures.front();
  else if (facts.count("devices") == 0) *error = "the probe reported no device count";
  return facts;
}

std::string ncclVersionText(const std::map<std::string, std::string>& facts) {
  std::string text = "unknown";
  auto code = facts.find("nccl_version_code");
  if (code != facts.end()) {
    // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9.
    const int v = std::atoi(code->second.c_str());
    text = std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
  }
  auto path = facts.find("nccl_library");
  if (path != facts.end()) text += " (" + path->second + ")";
  return text;
}

std::string envText(const char* name) {
  const char* value = std::getenv(name);
  return std::string(name) + "=" + (value ? value : "(unset)");
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

std::unique_ptr<ModeResults> runMode(const ModeSpec& spec, const Options& o, const std::vector<Case>& cases,
                                     int nranks) {
  auto results = std::make_unique<ModeResults>(spec.name, &cases, nranks, stdout);
  std::printf("[%s] starting: %d ranks as %s, %s\n", spec.name.c_str(), nranks,
              spec.procs ? "processes" : "threads of one process",
              spec.graph ? "each call captured into a CUDA graph" : "eager calls");
  const ModeJob job{nranks, &cases, spec.graph, o.caseTimeoutS, o.oneGpu};
  Supervisor supervisor;
  std::vector<std::string> startErrors;
  UniqueIdPipes ids(spec.procs ? nranks : 1);
  if (!spec.procs) {
    startErrors.push_back(supervisor.start(
        "threads process", [&](ReportChannel& channel) { return threadsWorker(job, channel); }));
  } else if (!ids.error().empty()) {
    startErrors.push_back(ids.error());
  } else {
    for (int rank = 0; rank < nranks; ++rank) {
      startErrors.push_back(supervisor.start("rank " + std::to_string(rank), [&, rank](ReportChannel& channel) {
        ids.keepFor(rank);
        return rankProcessWorker(job, rank, ids, channel);
      }));
      if (!startErrors.back().empty()) break;
    }
  }
  ids.closeAll();
  SupervisedRun run = supervisor.wait(o.modeTimeoutS, [&](const std::string& line) { results->onLine(line); });
  for (const std::string& error : startErrors)
    if (!error.empty()) run.failures.push_back(error);
  results->finish(run);
  return results;
}

int checkMain(int argc, char** argv) {
  Options o;
  std::string error;
  if (!parseOptions(argc, argv, &o, &error)) {
    std::fprintf(stderr, "flashccl_passthrough_check: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  if (o.help) {
    std::printf("%s", kUsage);
    return 0;
  }
  // Line-buffered even into a log file, so the last case before a hang is visible.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  installInterruptHandlers();

  const std::map<std::string, std::string> facts = probe(&error);
  if (!error.empty()) {
    std::printf("passthrough check: cannot start: %s\n", error.c_str());
    return 1;
  }
  const int devices = std::atoi(facts.at("devices").c_str());
  const std::string flashcclVersion = facts.count("flashccl_version") ? facts.at("flashccl_version") : "?";
  const char* disable = std::getenv("FLASHCCL_DISABLE");
  std::printf("flashccl %s over real NCCL %s\n", flashcclVersion.c_str(), ncclVersionText(facts).c_str());
  std::printf("pass-through: FLASHCCL_DISABLE=%s: %s\n", disable ? disable : "(unset)",
              disable && *disable && *disable != '0'
                  ? "flashccl should forward every call (each mode prints the communicator state rank 0 saw)"
                  : "AllReduce/AllGather/ReduceScatter may run on flashccl's kernels; compared with NCCL the same way");
  if (devices < (o.oneGpu ? 1 : 2)) {
    std::printf("passthrough check: skipped (needs %s; found %d%s%s)\n", o.oneGpu ? "a GPU" : ">= 2 GPUs", devices,
                facts.count("cuda_error") ? ": " : "", facts.count("cuda_error") ? facts.at("cuda_error").c_str() : "");
    return 0;
  }
  const int nranks = o.ranks > 0 ? o.ranks : o.oneGpu ? 2 : (devices < 8 ? devices : 8);
  if (nranks > devices && !o.oneGpu) {
    std::printf("passthrough check: --ranks %d but only %d GPUs are visible\n", nranks, devices);
    return 2;
  }

  const std::vector<Case> cases = buildCases(nranks, o.counts);
  const std::vector<ModeSpec> modes = selectedModes(o);
  if (o.oneGpu) {
    std::printf("%d ranks on GPU 0 (one process each); %zu cases per mode; %zu modes\n", nranks, cases.size(), modes.size());
  } else {
    std::printf("%d ranks on GPUs 0..%d; %zu cases per mode; %zu modes\n", nranks, nranks - 1, cases.size(), modes.size());
  }

  std::vector<std::unique_ptr<ModeResults>> results;
  Totals totals;
  size_t problems = 0;
  for (const ModeSpec& spec : modes) {
    results.push_back(runMode(spec, o, cases, nranks));
    totals.add(results.back()->totals());
    problems += results.back()->problems().size();
    if (interrupted()) break;
  }

  const std::string summary = "passthrough check: " + std::to_string(totals.cases) + " cases, " +
                              std::to_string(totals.differ) + " differ";
  std::printf("%s\n", summary.c_str());
  const bool clean = totals.identical == totals.cases && problems == 0 && !interrupted() &&
                     results.size() == modes.size();
  if (!clean)
    std::printf("passthrough check: FAILED: %zu errors, %zu cases without a result, %zu worker problems%s\n",
                totals.errors, totals.noResult, problems, interrupted() ? ", interrupted" : "");

  if (!o.markdownPath.empty()) {
    RecordHeader header;
    header.date = utcNow();
    header.machine = o.machine.empty() ? "(not given; --machine)" : o.machine;
    header.ncclVersion = ncclVersionText(facts) + "; the reference is the same library, called directly";
    header.flashcclVersion = flashcclVersion;
    std::string state = "(not reported)";
    for (const auto& mode : results)
      if (mode->facts().count("flashccl_comm_state")) state = mode->facts().at("flashccl_comm_state");
    header.passThrough = envText("FLASHCCL_DISABLE") + "; flashcclCommState on rank 0: " + state;
    header.ranks = o.oneGpu ? std::to_string(nranks) + " processes on GPU 0, each its own NCCL_HOSTID"
                            : std::to_string(nranks) + " (GPUs 0.." + std::to_string(nranks - 1) + ")";
    header.environment = envText("NCCL_NVLS_ENABLE") + " " + envText("NCCL_ALGO") + " " + envText("NCCL_PROTO") +
                         " " + envText("FLASHCCL_ALGO") + " " + envText("CUDA_VISIBLE_DEVICES");
    header.command = o.commandLine;
    header.summary = summary + (clean ? "" : " (FAILED: see below)");
    std::vector<const ModeResults*> view;
    for (const auto& mode : results) view.push_back(mode.get());
    const std::string written = writeRecord(o.markdownPath, header, view);
    if (!written.empty()) {
      std::printf("passthrough check: %s\n", written.c_str());
      return 1;
    }
    std::printf("record written to %s\n", o.markdownPath.c_str());
  }
  return clean ? 0 : 1;
}

}  // namespace
}  // namespace flashccl_gpu_test::passthrough

int main(int argc, char** argv) { return flashccl_gpu_test::passthrough::checkMain(argc, argv); }
