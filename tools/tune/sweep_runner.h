// Running the planned perf runs in order, judging each, and stopping at the first that failed:
// under --launched every rank stops at the same run, since a run that fails on one rank fails on
// all (their communicator is one).
#pragma once

#include <string>
#include <vector>

#include "perf_launcher.h"
#include "progress_bar.h"
#include "sweep_plan.h"
#include "sweep_results.h"
#include "tune_options.h"

namespace flashccl {
namespace tune {

struct SweepContext {
  const TuneOptions* options = nullptr;
  PerfLauncher* launcher = nullptr;
  std::string workDirectory;
  std::string pluginPath;
  // Whether this process reads records: false for the ranks but 0 of --launched (perf writes its
  // record on rank 0 only).
  bool readsRecords = true;
  ProgressBar* progress = nullptr;
};

enum class RunVerdict { kOk, kWrongResults, kFailed };

// What a finished run means; *why says it for kWrongResults and kFailed.
RunVerdict judgeRun(const PlannedRun& plan, const RunOutcome& outcome, bool readsRecords, std::string* why);

// Runs `plan` (runs `first`... of `total`, for the progress line), appending each to *done.
// Returns false at the first run that failed, with *error naming it, why and where its output is.
// *wrong collects the runs whose flashccl results were wrong (they do not stop the sweep).
bool runPlanned(const SweepContext& context, const std::vector<PlannedRun>& plan, size_t first, size_t total,
                std::vector<SweepRun>* done, std::vector<std::string>* wrong, std::string* error);

}  // namespace tune
}  // namespace flashccl
