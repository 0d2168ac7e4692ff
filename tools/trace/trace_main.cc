// `flashccl trace DIR`: merges the flight-recorder dumps of every rank (copied into DIR from
// every host), prints the verdict the live watchdog would print and a timeline per communicator.
// Exit status: 0 no hang found, 1 a hang found, 2 bad usage or nothing to read.
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "base/config.h"
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
               "the rank that hangs a communicator, as the live watchdog does.",
               "flashccl trace");
  std::string dir, jsonPath;
  size_t last = 16;
  double timeoutSeconds = 0;
  app.add_option("DIR", dir, "directory holding the dumps (searched recursively)")->required();
  app.add_option("--json", jsonPath, "also write the report as JSON to this file");
  app.add_option("--last", last, "calls per communicator in the timeline (default 16)")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout", timeoutSeconds,
                 "seconds a call must have waited to count as stuck (default: the dumps' "
                 "FLASHCCL_HANG_TIMEOUT)")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitNoHang;
  } catch (const CLI::ParseError& e) {
    err << "flashccl trace: " << e.what() << " (usage: flashccl trace DIR [--json FILE] [--last N] "
           "[--timeout SECONDS])\n";
    return kExitUsage;
  }

  std::vector<std::pair<std::string, std::string>> files;
  std::string error;
  if (!readDumpFiles(dir, &files, &error)) {
    err << "flashccl trace: " << error << "\n";
    return kExitUsage;
  }
  const MergedDumps dumps = mergeDumps(files);
  if (dumps.files == 0) {
    err << "flashccl trace: no flashccl dumps in " << dir
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
