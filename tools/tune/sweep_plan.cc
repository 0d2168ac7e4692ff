#include "sweep_plan.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "selection_decision.h"
#include "size_list.h"
#include "tuning_xml.h"

namespace flashccl {
namespace tune {

std::string runSlug(size_t index, const std::string& what) {
  char number[16];
  std::snprintf(number, sizeof(number), "%02zu-", index + 1);
  std::string slug = number;
  for (char c : what) slug += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '-';
  std::string squeezed;
  for (char c : slug)
    if (!(c == '-' && !squeezed.empty() && squeezed.back() == '-')) squeezed += c;
  while (!squeezed.empty() && squeezed.back() == '-') squeezed.pop_back();
  return squeezed;
}

namespace {

PlannedRun baselineRun(const TuneOptions& options, int index) {
  PlannedRun run;
  run.kind = RunKind::kBaseline;
  run.label = "NCCL default (baseline " + std::to_string(index + 1) + " of " +
              std::to_string(options.baselineRuns) + ")";
  run.collectives = options.collectives;
  run.environment = {{"FLASHCCL_TUNER_FORCE", "nccl"}};
  run.logging = NcclLogging::kInit;
  run.check = true;
  return run;
}

// flashccl's algorithms, one per collective in each run: as many runs as the collective with the
// most algorithms has.
std::vector<PlannedRun> flashcclRuns(const TuneOptions& options) {
  std::vector<PlannedRun> runs;
  for (size_t i = 0;; ++i) {
    PlannedRun run;
    run.kind = RunKind::kFlashccl;
    std::string forced;
    for (perf::Collective coll : options.collectives) {
      size_t seen = 0;
      for (const FlashcclAlgorithm& a : options.flashcclAlgorithms) {
        if (a.collective != coll || seen++ != i) continue;
        run.collectives.push_back(coll);
        run.flashccl[coll] = a.name;
        forced += (forced.empty() ? "" : ",") + std::string(perf::collectiveName(coll)) + ":" + a.name;
      }
    }
    if (run.collectives.empty()) break;
    run.label = "flashccl " + forced;
    run.environment = {{"FLASHCCL_TUNER_FORCE", "nccl"}, {"FLASHCCL_ALGO", forced}};
    run.logging = NcclLogging::kInit;
    run.check = true;
    runs.push_back(run);
  }
  return runs;
}

}  // namespace

std::vector<PlannedRun> planSweep(const TuneOptions& options, const std::vector<NcclChoice>& candidates) {
  std::vector<PlannedRun> middle;
  for (size_t i = 0; i < candidates.size(); ++i) {
    PlannedRun run;
    run.kind = RunKind::kChoice;
    run.label = candidates[i].label();
    run.collectives = options.collectives;
    run.candidate = int(i);
    run.environment = {{"FLASHCCL_TUNER_FORCE", candidates[i].forceEntry()}};
    run.logging = NcclLogging::kTunerWarnings;
    middle.push_back(run);
  }
  for (PlannedRun& run : flashcclRuns(options)) middle.push_back(run);

  // Baseline k goes before the middle run at k * M / (B - 1); the last one after all of them.
  std::vector<PlannedRun> plan;
  const int baselines = options.baselineRuns;
  const size_t m = middle.size();
  int next = 0;
  for (size_t i = 0; i <= m; ++i) {
    while (next < baselines &&
           (baselines == 1 ? i == 0 : size_t(next) * m / size_t(baselines - 1) == i)) {
      plan.push_back(baselineRun(options, next++));
    }
    if (i < m) plan.push_back(middle[i]);
  }
  for (size_t i = 0; i < plan.size(); ++i) plan[i].slug = runSlug(i, plan[i].label);
  return plan;
}

PlannedRun withTableRun(const TuneOptions& options, const std::string& tablePath) {
  PlannedRun run;
  run.kind = RunKind::kWithTable;
  run.label = "NCCL with the written table";
  run.collectives = options.collectives;
  run.environment = {{"FLASHCCL_TUNER_FILE", tablePath}};
  run.logging = NcclLogging::kInit;
  return run;
}

PlannedRun verifyRun(const TuneOptions& options, const std::string& tablePath) {
  PlannedRun run = withTableRun(options, tablePath);
  run.kind = RunKind::kVerify;
  run.label = "NCCL's choices with the table";
  run.logging = NcclLogging::kEveryCall;
  run.short_ = true;
  return run;
}

PlannedRun selectionRun(const std::string& tablePath, const std::vector<perf::Collective>& collectives,
                        size_t minBytes, size_t maxBytes) {
  PlannedRun run;
  run.kind = RunKind::kSelection;
  run.label = "flashccl's selection with the table, " + sizeText(minBytes) +
              (minBytes == maxBytes ? "" : " - " + sizeText(maxBytes));
  run.collectives = collectives;
  run.environment = {{"FLASHCCL_TOPO_FILE", tablePath}, {"FLASHCCL_TUNER_FORCE", "nccl"}};
  run.logging = NcclLogging::kInit;
  run.check = true;
  run.minBytes = minBytes;
  run.maxBytes = maxBytes;
  return run;
}

namespace {

// Whether a run measures what flashccl's selection rows need (fp32 and bf16, in place too).
bool measuresSelection(const TuneOptions& options, const PlannedRun& run) {
  if (run.kind == RunKind::kSelection) return true;
  return !options.flashcclAlgorithms.empty() && (run.kind == RunKind::kBaseline || run.kind == RunKind::kFlashccl);
}

size_t runMinBytes(const TuneOptions& options, const PlannedRun& run) {
  return run.minBytes ? run.minBytes : options.sizes.minBytes;
}
size_t runMaxBytes(const TuneOptions& options, const PlannedRun& run) {
  return run.maxBytes ? run.maxBytes : options.sizes.maxBytes;
}

}  // namespace

double predictedSeconds(const TuneOptions& options, const std::vector<PlannedRun>& plan) {
  double seconds = 0.0;
  for (const PlannedRun& run : plan) {
    seconds += kRunStartSeconds;
    const double conditions = measuresSelection(options, run) ? double(selectionConditions().size()) : 1.0;
    const double calls = run.short_ ? 2.0 : 2.0 * options.pairs * (options.iters + options.warmupIters);
    for (size_t i = 0; i < run.collectives.size(); ++i)
      for (size_t bytes :
           perf::geometricSizes(runMinBytes(options, run), runMaxBytes(options, run), options.sizes.stepFactor))
        seconds += conditions * calls * (kCallMicros + double(bytes) / kBytesPerMicro) * 1e-6;
  }
  return seconds;
}

std::vector<std::string> perfArguments(const TuneOptions& options, const PlannedRun& run,
                                       const std::string& jsonPath) {
  std::string collectives;
  for (perf::Collective coll : run.collectives)
    collectives += (collectives.empty() ? "" : ",") + std::string(perf::collectiveName(coll));
  // The tuner sees sizes, not placements or types: its choices are measured out of place in the
  // one -d type, which saves half the runs' time. flashccl's rows must hold for every call a job
  // may make (selection_decision.h), so the runs they come from (NCCL's default, flashccl's
  // algorithms) also measure fp32 and bf16, in place.
  const bool selectionInput = measuresSelection(options, run);
  std::vector<perf::DataType> measured = {options.dataType};
  if (selectionInput)
    for (const SelectionCondition& condition : selectionConditions())
      if (std::find(measured.begin(), measured.end(), condition.dataType) == measured.end())
        measured.push_back(condition.dataType);
  std::string types;
  for (perf::DataType type : measured) types += (types.empty() ? "" : ",") + std::string(perf::dataTypeName(type));
  std::vector<std::string> args = {"perf",
                                   "-b", std::to_string(runMinBytes(options, run)),
                                   "-e", std::to_string(runMaxBytes(options, run)),
                                   "-f", std::to_string(options.sizes.stepFactor),
                                   "--coll", collectives,
                                   "-d", types,
                                   "--placement", selectionInput ? "both" : "out",
                                   "-n", std::to_string(run.short_ ? 1 : options.iters),
                                   "-w", std::to_string(run.short_ ? 0 : options.warmupIters),
                                   "--pairs", std::to_string(run.short_ ? 1 : options.pairs),
                                   "-c", run.check ? "1" : "0",
                                   "-T", std::to_string(options.timeoutSeconds)};
  if (options.threads > 0) args.insert(args.end(), {"-t", std::to_string(options.threads)});
  if (options.processes > 0) args.insert(args.end(), {"--processes", std::to_string(options.processes)});
  if (options.launched) args.push_back("--launched");
  args.insert(args.end(), {"-J", jsonPath});
  return args;
}

const std::vector<std::string>& droppedVariables() {
  // Entries are prefixes of "NAME=value": "FLASHCCL_ALGO=" drops FLASHCCL_ALGO, not FLASHCCL_ALGO_DIR.
  static const std::vector<std::string> names = {"FLASHCCL_TUNER_FORCE=", "FLASHCCL_TUNER_FILE=",
                                                 "FLASHCCL_ALGO=", "NCCL_TUNER_PLUGIN=", "NCCL_DEBUG"};
  return names;
}

std::map<std::string, std::string> runEnvironment(const PlannedRun& run, const std::string& pluginPath,
                                                  const std::string& ncclLogPattern) {
  std::map<std::string, std::string> env = run.environment;
  env["NCCL_TUNER_PLUGIN"] = pluginPath;
  env["NCCL_DEBUG_FILE"] = ncclLogPattern;
  switch (run.logging) {
    case NcclLogging::kInit:
      env["NCCL_DEBUG"] = "INFO";
      env["NCCL_DEBUG_SUBSYS"] = "INIT";
      break;
    case NcclLogging::kTunerWarnings:
      env["NCCL_DEBUG"] = "WARN";
      env["NCCL_DEBUG_SUBSYS"] = "INIT,TUNING";
      break;
    case NcclLogging::kEveryCall:
      env["NCCL_DEBUG"] = "INFO";
      env["NCCL_DEBUG_SUBSYS"] = "INIT,TUNING";
      break;
  }
  return env;
}

}  // namespace tune
}  // namespace flashccl
