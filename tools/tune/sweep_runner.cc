#include "sweep_runner.h"

namespace flashccl {
namespace tune {

namespace {

bool logsPluginInit(NcclLogging logging) { return logging == NcclLogging::kInit || logging == NcclLogging::kEveryCall; }

}  // namespace

RunVerdict judgeRun(const PlannedRun& plan, const RunOutcome& outcome, bool readsRecords, std::string* why) {
  const std::string output = " (its output: " + outcome.outputPath + ")";
  if (!outcome.started) {
    *why = "perf did not start: " + outcome.ended;
    return RunVerdict::kFailed;
  }
  // perf's status 1 is "wrong results" only with a complete record that counts them (rank 0);
  // otherwise, and for any other status, the run failed.
  const bool wrongResults = outcome.exitStatus == 1 && readsRecords && outcome.haveRecord &&
                            outcome.recordComplete && outcome.record.totalWrong() > 0;
  if (outcome.exitStatus != 0 && !wrongResults) {
    *why = "perf ended with " + outcome.ended + output;
    return RunVerdict::kFailed;
  }
  if (readsRecords && (!outcome.haveRecord || !outcome.recordComplete)) {
    *why = "perf left no complete record" + (outcome.recordError.empty() ? "" : " (" + outcome.recordError + ")") +
           output;
    return RunVerdict::kFailed;
  }
  // Every rank reads its own NCCL log, so under --launched all stop together when NCCL did not
  // load the plugin.
  if (logsPluginInit(plan.logging) && outcome.log.inits.empty()) {
    *why = "NCCL did not load the tuner plugin: its log has no 'TUNER/flashccl: flashccl tuner' line "
           "(NCCL before 2.19 has no tuner plugins)" + output;
    return RunVerdict::kFailed;
  }
  if (!outcome.log.pluginWarnings.empty()) {
    *why = "the tuner plugin warned: " + outcome.log.pluginWarnings.front() + output;
    return RunVerdict::kFailed;
  }
  if (plan.kind == RunKind::kWithTable || plan.kind == RunKind::kVerify) {
    for (const PluginInit& init : outcome.log.inits) {
      if (init.rowsApplied <= 0) {
        *why = "the plugin used no row of the table: " + init.summary + output;
        return RunVerdict::kFailed;
      }
    }
  }
  if (wrongResults) {
    *why = std::to_string(outcome.record.totalWrong()) + " wrong elements in flashccl's results" + output;
    return RunVerdict::kWrongResults;
  }
  return RunVerdict::kOk;
}

bool runPlanned(const SweepContext& context, const std::vector<PlannedRun>& plan, size_t first, size_t total,
                std::vector<SweepRun>* done, std::vector<std::string>* wrong, std::string* error) {
  double seconds = 0;
  for (const SweepRun& run : *done) seconds += run.outcome.seconds;
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedRun& run = plan[i];
    const size_t index = first + i;
    RunRequest request;
    request.directory = context.workDirectory + "/" + run.slug;
    request.jsonPath = request.directory + "/perf.json";
    request.arguments = perfArguments(*context.options, run, request.jsonPath);
    request.environment = runEnvironment(run, context.pluginPath, request.directory + "/nccl.%h.%p.log");
    if (context.progress) context.progress->begin(index, total, run.label, seconds);
    SweepRun finished{run, context.launcher->run(request)};
    seconds += finished.outcome.seconds;
    std::string why;
    const RunVerdict verdict = judgeRun(run, finished.outcome, context.readsRecords, &why);
    if (context.progress)
      context.progress->end(index, total, run.label, finished.outcome.seconds,
                            verdict == RunVerdict::kOk ? "done" : verdict == RunVerdict::kFailed ? "FAILED" : "wrong results");
    done->push_back(finished);
    if (verdict == RunVerdict::kWrongResults) wrong->push_back(run.label + ": " + why);
    if (verdict == RunVerdict::kFailed) {
      if (context.progress) context.progress->clear();
      *error = "run " + std::to_string(index + 1) + " (" + run.label + ") failed: " + why;
      return false;
    }
  }
  if (context.progress) context.progress->clear();
  return true;
}

}  // namespace tune
}  // namespace flashccl
