#include "tune_record.h"

#include <cmath>

namespace flashccl {
namespace tune {

namespace {

using Json = perf::Json;

double rounded(double value) { return std::isfinite(value) ? std::round(value * 1000.0) / 1000.0 : 0.0; }
double percent(double fraction) { return rounded(fraction * 100.0); }

const char* kindName(RunKind kind) {
  switch (kind) {
    case RunKind::kBaseline: return "baseline";
    case RunKind::kChoice: return "choice";
    case RunKind::kFlashccl: return "flashccl";
    case RunKind::kWithTable: return "with_table";
    case RunKind::kVerify: return "verify";
    case RunKind::kSelection: return "selection";
  }
  return "?";
}

Json choiceJson(const NcclChoice& c) {
  return {{"algorithm", c.algorithm}, {"protocol", c.protocol}, {"channels", c.channels}, {"label", c.label()}};
}

Json timingJson(const Timing& t) {
  return {{"time_us", rounded(t.median)}, {"q1_us", rounded(t.q1)}, {"q3_us", rounded(t.q3)}};
}

Json runJson(const SweepRun& run, const std::vector<NcclChoice>& candidates) {
  Json environment = Json::object();
  for (const auto& kv : run.plan.environment) environment[kv.first] = kv.second;
  Json refused = Json::array();
  for (const UnavailableChoice& u : run.outcome.log.unavailable)
    refused.push_back({{"collective", u.collective}, {"bytes", u.bytes}, {"algorithm", u.algorithm},
                       {"protocol", u.protocol}});
  Json record = run.outcome.haveRecord ? perf::reportToJson(run.outcome.record, run.outcome.recordComplete) : Json();
  Json j = {{"label", run.plan.label},
            {"kind", kindName(run.plan.kind)},
            {"directory", run.plan.slug},
            {"environment", environment},
            {"exit_status", run.outcome.exitStatus},
            {"ended", run.outcome.ended},
            {"seconds", rounded(run.outcome.seconds)},
            {"refused", refused},
            {"perf_record", record}};
  if (run.plan.candidate >= 0) j["choice"] = choiceJson(candidates[size_t(run.plan.candidate)]);
  return j;
}

Json sizeJson(const SizeResults& size, const SizeDecision& d, const std::vector<NcclChoice>& candidates) {
  Json defaults = Json::array();
  for (const Timing& t : size.point.defaults) defaults.push_back(timingJson(t));
  Json choices = Json::array();
  for (const CandidateTiming& c : size.point.candidates) {
    Json entry = timingJson(c.timing);
    entry["choice"] = candidates[size_t(c.candidate)].label();
    entry["available"] = c.available;
    choices.push_back(entry);
  }
  Json flashccl = Json::array();
  for (const FlashcclTiming& f : size.flashccl) {
    Json entry = timingJson(f.timing);
    entry["algorithm"] = f.algorithm;
    entry["forced"] = f.forced;
    entry["wrong"] = f.wrong;
    flashccl.push_back(entry);
  }
  const FlashcclTiming* best = bestFlashccl(size);
  return {{"size_bytes", size.bytes},
          {"default", {{"time_us", rounded(d.defaultMicros)}, {"runs", defaults},
                       {"run_to_run_percent", percent(d.runToRunFraction)}}},
          {"choices", choices},
          {"decision",
           {{"winner", d.winner >= 0 ? Json(candidates[size_t(d.winner)].label()) : Json(nullptr)},
            {"time_us", rounded(d.winner >= 0 ? d.winnerMicros : d.defaultMicros)},
            {"fastest", d.fastest >= 0 ? Json(candidates[size_t(d.fastest)].label()) : Json(nullptr)},
            {"fastest_us", rounded(d.fastestMicros)},
            {"gain_percent", percent(d.gainFraction)},
            {"spread_percent", percent(d.spreadFraction)},
            {"required_percent", percent(d.requiredFraction)}}},
          {"flashccl", flashccl},
          {"flashccl_best", best ? Json({{"algorithm", best->algorithm}, {"time_us", rounded(best->timing.median)}})
                                 : Json(nullptr)},
          {"with_table_us", size.haveWithTable ? Json(rounded(size.withTable.median)) : Json(nullptr)}};
}

}  // namespace

Json tuneRecordToJson(const TuneSummary& s) {
  const TuneOptions& o = *s.options;
  Json candidates = Json::array();
  for (const NcclChoice& c : s.candidates) candidates.push_back(choiceJson(c));
  Json runs = Json::array();
  for (const SweepRun& run : s.runs) runs.push_back(runJson(run, s.candidates));
  Json collectives = Json::array();
  for (const CollectiveOutcome& c : s.collectives) {
    Json sizes = Json::array();
    for (size_t i = 0; i < c.decisions.size() && i < c.results.sizes.size(); ++i)
      sizes.push_back(sizeJson(c.results.sizes[i], c.decisions[i], s.candidates));
    Json refused = Json::array();
    for (int r : c.results.refused) refused.push_back(s.candidates[size_t(r)].label());
    Json bands = Json::array();
    for (const Band& b : c.bands) {
      Json band = choiceJson(s.candidates[size_t(b.winner)]);
      band["min_bytes"] = b.minBytes;
      band["max_bytes"] = b.maxBytes;
      bands.push_back(band);
    }
    collectives.push_back({{"collective", perf::collectiveName(c.results.collective)},
                           {"refused", refused},
                           {"sizes", sizes},
                           {"bands", bands}});
  }
  // flashccl's rows (selection_decision.h), the speedup plot's input (python -m flashccl plot).
  Json selection = Json::array();
  for (const CollectiveOutcome& c : s.collectives) {
    Json sizes = Json::array();
    for (const SelectionDecision& d : c.selection) {
      const int shown = d.winner >= 0 ? d.winner : d.best;
      sizes.push_back({{"bytes", d.bytes},
                       {"nccl_us", rounded(d.ncclMicros)},
                       {"flashccl_algorithm", shown >= 0 ? o.flashcclAlgorithms[size_t(shown)].name : ""},
                       {"flashccl_us", rounded(d.bestMicros)},
                       {"speedup", rounded(d.speedup)},
                       {"spread_percent", percent(d.spreadFraction)},
                       {"row", d.winner >= 0 ? o.flashcclAlgorithms[size_t(d.winner)].name : "nccl"},
                       {"why", d.why}});
    }
    selection.push_back({{"collective", perf::collectiveName(c.results.collective)}, {"ranks", s.ranks}, {"sizes", sizes}});
  }
  Json verify = Json(nullptr);
  if (s.verified) {
    Json rows = Json::array();
    for (const RowCheck& r : s.verify.rows)
      rows.push_back({{"row", r.source}, {"choice", r.choice}, {"calls", r.calls}, {"applied", r.applied},
                      {"first_mismatch", r.firstMismatch}});
    verify = {{"passed", s.verify.passed()}, {"calls_logged", s.verify.callsLogged}, {"rows", rows},
              {"problems", s.verify.problems}};
  }
  return {{"tool", "flashccl tune"},
          {"schema", kTuneRecordSchema},
          {"flashccl_version", s.flashcclVersion},
          {"nccl_version", s.ncclVersion},
          {"date", s.date},
          {"machine", s.machine},
          {"command", s.command},
          {"ranks", s.ranks},
          {"nodes", s.nodes},
          {"plugin", s.pluginPath},
          {"settings",
           {{"min_bytes", o.sizes.minBytes}, {"max_bytes", o.sizes.maxBytes}, {"step_factor", o.sizes.stepFactor},
            {"dtype", perf::dataTypeName(o.dataType)}, {"iters", o.iters}, {"warmup_iters", o.warmupIters},
            {"pairs", o.pairs}, {"baseline_runs", o.baselineRuns},
            {"pick", o.pick == PickRule::kFastest ? "fastest" : "significant"},
            {"margin_percent", o.marginPercent}}},
          {"candidates", candidates},
          {"runs", runs},
          {"collectives", collectives},
          {"selection", selection},
          {"installed", {{"path", s.installedPath}, {"report", s.installedReport}}},
          {"table", {{"path", s.tablePath}, {"rows", s.tableRows}, {"text", s.tableText}}},
          {"verify", verify},
          {"wrong_results", s.wrongResults},
          {"notes", s.notes}};
}

}  // namespace tune
}  // namespace flashccl
