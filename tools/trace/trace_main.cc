// `flashccl trace DUMPS...`: merges the flight-recorder dumps of every rank (files, or folders the
// dumps were copied into from every host), prints the verdict the live watchdog would print and a
// timeline per communicator.
// Exit status: 0 no hang found, 1 a hang found, 2 bad usage or nothing to read.
#include <fstream>
#include <iostream>

#include "base/config.h"
#include "cli_options.h"
#include "dump_merge.h"
#include "subcommands.h"
#include "trace_report.h"
#include "trace_tool.h"

namespace flashccl {

namespace {

constexpr int kExitNoHang = 0;
constexpr int kExitHang = 1;
constexpr int kExitUsage = 2;

}  // namespace

int runTrace(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app("Merges flashccl flight-recorder dumps (FLASHCCL_TRACE_DIR of every host) and names "
               "the rank that hangs a communicator, as the live watchdog does. Exit status 0 no hang "
               "found, 1 a hang found, 2 bad usage or nothing to read.",
               "flashccl trace");
  app.get_formatter()->column_width(34);
  std::vector<std::string> paths;
  std::string jsonPath;
  size_t last = 16;
  double timeoutSeconds = 0;
  app.add_option("DUMPS", paths, "dump files, or folders holding them (searched recursively); several allowed")
      ->required();
  cli::addJsonFile(app, &jsonPath, "also write the report as JSON to this file");
  app.add_option("--last", last, "calls per communicator in the timeline")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--timeout", timeoutSeconds,
                 "seconds a call must have waited to count as stuck (default: the dumps' "
                 "FLASHCCL_HANG_TIMEOUT)")
      ->check(CLI::PositiveNumber);
  const int parsed = cli::parse(app, "trace", std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + argc),
                                out, err);
  if (parsed >= 0) return parsed;

  std::vector<std::pair<std::string, std::string>> files;
  std::string error;
  if (!readDumpFiles(paths, &files, &error)) {
    err << "flashccl trace: " << error << "\n";
    return kExitUsage;
  }
  const MergedDumps dumps = mergeDumps(files);
  if (dumps.files == 0) {
    std::string named;
    for (const std::string& path : paths) named += (named.empty() ? "" : ", ") + path;
    err << "flashccl trace: no flashccl dumps in " << named
        << " (files named flashccl-trace.<host>.<pid>.<n>.json)\n";
    for (const std::string& problem : dumps.problems) err << "  skipped " << problem << "\n";
    return kExitUsage;
  }
  if (timeoutSeconds <= 0) {
    // FLASHCCL_HANG_TIMEOUT's default when the dumps do not say.
    timeoutSeconds = dumps.timeoutSeconds > 0 ? dumps.timeoutSeconds : Config().hangTimeoutSeconds;
  }
  const std::vector<CommAnalysis> analyses =
      analyzeDumps(dumps, static_cast<int64_t>(timeoutSeconds * 1e9), last);
  printTextReport(dumps, analyses, out);
  if (!jsonPath.empty()) {
    std::ofstream json(jsonPath);
    json << jsonReport(dumps, analyses);
    if (!json) {
      err << "flashccl trace: cannot write " << jsonPath << "\n";
      return kExitUsage;
    }
  }
  for (const CommAnalysis& analysis : analyses) {
    if (anyBlocking(analysis.findings)) return kExitHang;
  }
  return kExitNoHang;
}

int traceMain(int argc, char** argv) { return runTrace(argc, argv, std::cout, std::cerr); }

}  // namespace flashccl
