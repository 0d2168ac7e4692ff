#include "selection_decision.h"

#include <algorithm>
#include <cstdio>

namespace flashccl {
namespace tune {

namespace {

const CandidateTiming* ranAt(const SizePoint& point, int candidate) {
  for (const CandidateTiming& c : point.candidates)
    if (c.candidate == candidate && c.available && c.timing.median > 0) return &c;
  return nullptr;
}

// Candidate `c` under every condition: whether it ran under all of them, its smallest margin over
// what it had to beat (gain - spread - margin), the largest spread, and the first condition that
// it did not win (for the words).
struct Verdict {
  bool ranEverywhere = true;
  double worstExcess = 1e300;
  double worstGain = 1e300;
  double maxSpread = 0.0;
  std::string firstLoss;
};

Verdict judge(const SelectionSize& size, int c, double marginFraction) {
  Verdict v;
  const std::vector<SelectionCondition>& conditions = selectionConditions();
  for (size_t i = 0; i < conditions.size(); ++i) {
    const CandidateTiming* t = i < size.conditions.size() ? ranAt(size.conditions[i], c) : nullptr;
    if (!t || size.conditions[i].defaults.empty()) {
      v.ranEverywhere = false;
      if (v.firstLoss.empty()) v.firstLoss = conditionLabel(conditions[i]) + ": not measured or not run";
      continue;
    }
    const DefaultSpread d = spreadAgainstDefault(size.conditions[i].defaults, t->timing);
    if (d.defaultMicros <= 0) {
      v.ranEverywhere = false;
      continue;
    }
    const double gain = (d.defaultMicros - t->timing.median) / d.defaultMicros;
    const double excess = gain - d.spreadFraction - marginFraction;
    v.maxSpread = std::max(v.maxSpread, d.spreadFraction);
    v.worstGain = std::min(v.worstGain, gain);
    v.worstExcess = std::min(v.worstExcess, excess);
    if (excess <= 0 && v.firstLoss.empty()) {
      char line[200];
      std::snprintf(line, sizeof(line), "%s: %+.1f%% against NCCL, needed more than %.1f%%",
                    conditionLabel(conditions[i]).c_str(), 100.0 * gain,
                    100.0 * (d.spreadFraction + marginFraction));
      v.firstLoss = line;
    }
  }
  return v;
}

// Every candidate index that appears at this size.
std::vector<int> candidatesAt(const SelectionSize& size) {
  std::vector<int> all;
  for (const SizePoint& point : size.conditions)
    for (const CandidateTiming& c : point.candidates)
      if (std::find(all.begin(), all.end(), c.candidate) == all.end()) all.push_back(c.candidate);
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

const std::vector<SelectionCondition>& selectionConditions() {
  using perf::DataType;
  using perf::Placement;
  static const std::vector<SelectionCondition> conditions = {
      {DataType::kFloat, Placement::kOutOfPlace},
      {DataType::kFloat, Placement::kInPlace},
      {DataType::kBfloat16, Placement::kOutOfPlace},
      {DataType::kBfloat16, Placement::kInPlace},
  };
  return conditions;
}

std::string conditionLabel(const SelectionCondition& condition) {
  return std::string(condition.dataType == perf::DataType::kBfloat16 ? "bf16"
                     : condition.dataType == perf::DataType::kFloat  ? "fp32"
                                                                     : perf::dataTypeName(condition.dataType)) +
         (condition.placement == perf::Placement::kInPlace ? " in place" : " out of place");
}

std::vector<SelectionDecision> decideSelection(const std::vector<SelectionSize>& sizes, double marginFraction,
                                               PickRule rule, const std::vector<std::string>& names) {
  std::vector<SelectionDecision> decisions;
  for (const SelectionSize& size : sizes) {
    SelectionDecision d;
    d.bytes = size.bytes;
    const SizePoint* first = size.conditions.empty() ? nullptr : &size.conditions.front();
    if (first && !first->defaults.empty()) {
      d.ncclMicros = spreadAgainstDefault(first->defaults, Timing{}).defaultMicros;
    }
    // The fastest under the first condition, for the report when nothing wins.
    const CandidateTiming* fastest = nullptr;
    if (first)
      for (const CandidateTiming& c : first->candidates)
        if (c.available && c.timing.median > 0 && (!fastest || c.timing.median < fastest->timing.median)) fastest = &c;
    d.best = fastest ? fastest->candidate : -1;

    int winner = -1;
    Verdict winning;
    std::string firstLoss;
    for (int c : candidatesAt(size)) {
      const Verdict v = judge(size, c, marginFraction);
      if (!v.ranEverywhere) {
        if (firstLoss.empty()) firstLoss = (size_t(c) < names.size() ? names[c] : "?") + " " + v.firstLoss;
        continue;
      }
      const bool wins = rule == PickRule::kFastest ? true : v.worstExcess > 0;
      if (!wins) {
        if (firstLoss.empty() && c == d.best) firstLoss = (size_t(c) < names.size() ? names[c] : "?") + " " + v.firstLoss;
        continue;
      }
      // kSignificant: the largest smallest excess; kFastest: the largest smallest gain.
      const double score = rule == PickRule::kFastest ? v.worstGain : v.worstExcess;
      const double held = rule == PickRule::kFastest ? winning.worstGain : winning.worstExcess;
      if (winner < 0 || score > held) {
        winner = c;
        winning = v;
      }
    }
    d.winner = winner;
    const int shown = winner >= 0 ? winner : d.best;
    if (shown >= 0 && first) {
      if (const CandidateTiming* t = ranAt(*first, shown)) d.bestMicros = t->timing.median;
      d.spreadFraction = judge(size, shown, marginFraction).maxSpread;
    }
    d.speedup = d.bestMicros > 0 ? d.ncclMicros / d.bestMicros : 0.0;
    if (winner < 0) d.why = d.best < 0 && firstLoss.empty() ? "no flashccl algorithm ran" : firstLoss;
    decisions.push_back(d);
  }
  return decisions;
}

std::vector<SelectionBand> selectionBands(const std::vector<SelectionDecision>& decisions) {
  std::vector<SelectionBand> bands;
  int open = -1;
  for (const SelectionDecision& d : decisions) {
    if (d.winner >= 0 && d.winner == open) {
      SelectionBand& band = bands.back();
      band.maxBytes = d.bytes;
      band.minSpeedup = std::min(band.minSpeedup, d.speedup);
      band.maxSpread = std::max(band.maxSpread, d.spreadFraction);
      continue;
    }
    open = d.winner;
    if (d.winner >= 0) bands.push_back({d.winner, d.bytes, d.bytes, d.speedup, d.spreadFraction});
  }
  return bands;
}

}  // namespace tune
}  // namespace flashccl
