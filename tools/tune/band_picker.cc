#include "band_picker.h"

#include <algorithm>

#include "timing_stats.h"

namespace flashccl {
namespace tune {

namespace {

struct DefaultAtSize {
  double micros = 0.0;
  double runToRun = 0.0;   // (max - min) of the runs' medians / micros
  double widestIqr = 0.0;  // the largest interquartile range of one run / its median
};

DefaultAtSize summarizeDefault(const std::vector<Timing>& runs) {
  DefaultAtSize d;
  std::vector<double> medians;
  for (const Timing& t : runs) {
    medians.push_back(t.median);
    d.widestIqr = std::max(d.widestIqr, t.iqrFraction());
  }
  d.micros = perf::median(medians);
  if (d.micros > 0 && !medians.empty()) {
    const auto range = std::minmax_element(medians.begin(), medians.end());
    d.runToRun = (*range.second - *range.first) / d.micros;
  }
  return d;
}

// A choice is measured in one run, the default in several: the choice's run may have landed on a
// quiet moment of the machine, as far from the default's typical run as the default's runs are
// from each other, on top of the noise within the runs. Hence the sum. Every term is a fraction of
// the default's time, the unit of the gain it is compared with: a choice five times faster whose
// blocks wander by 1 ms is as uncertain as the default whose blocks wander by 1 ms, not five times
// more (relative to its own small median, one late wake-up made such a choice unpickable).
double spreadWith(const DefaultAtSize& d, const Timing& candidate) {
  const double candidateIqr = d.micros > 0 ? (candidate.q3 - candidate.q1) / d.micros : 0.0;
  return d.runToRun + std::max(d.widestIqr, candidateIqr);
}

const CandidateTiming* findCandidate(const SizePoint& point, int candidate) {
  for (const CandidateTiming& c : point.candidates)
    if (c.candidate == candidate && c.available) return &c;
  return nullptr;
}

}  // namespace

DefaultSpread spreadAgainstDefault(const std::vector<Timing>& defaults, const Timing& candidate) {
  const DefaultAtSize d = summarizeDefault(defaults);
  return {d.micros, spreadWith(d, candidate)};
}

std::vector<SizeDecision> decideSizes(const std::vector<SizePoint>& points, double marginFraction,
                                      PickRule rule) {
  std::vector<SizeDecision> decisions;
  int previousWinner = -1;
  for (const SizePoint& point : points) {
    SizeDecision decision;
    decision.bytes = point.bytes;
    const DefaultAtSize d = summarizeDefault(point.defaults);
    decision.defaultMicros = d.micros;
    decision.runToRunFraction = d.runToRun;
    // The fastest available choice; equal times go to the one listed first (lower index).
    const CandidateTiming* fastest = nullptr;
    for (const CandidateTiming& c : point.candidates) {
      if (!c.available || c.timing.median <= 0) continue;
      if (!fastest || c.timing.median < fastest->timing.median ||
          (c.timing.median == fastest->timing.median && c.candidate < fastest->candidate))
        fastest = &c;
    }
    if (fastest && d.micros > 0) {
      decision.fastest = fastest->candidate;
      decision.fastestMicros = fastest->timing.median;
      decision.spreadFraction = spreadWith(d, fastest->timing);
      decision.requiredFraction = decision.spreadFraction + marginFraction;
      decision.gainFraction = (d.micros - fastest->timing.median) / d.micros;
      const CandidateTiming* winner = nullptr;
      if (rule == PickRule::kFastest) {
        winner = fastest;
      } else if (decision.gainFraction > decision.requiredFraction) {
        winner = fastest;
        // Keep the previous size's winner when it also wins here and is within the spread of the
        // fastest: near-equal choices then make one band instead of alternating with the noise.
        const CandidateTiming* previous = findCandidate(point, previousWinner);
        if (previous && previous != fastest) {
          const double spread = spreadWith(d, previous->timing);
          const double gain = (d.micros - previous->timing.median) / d.micros;
          if (gain > spread + marginFraction &&
              previous->timing.median <= fastest->timing.median * (1.0 + decision.spreadFraction)) {
            winner = previous;
            decision.spreadFraction = spread;
            decision.requiredFraction = spread + marginFraction;
          }
        }
      }
      if (winner) {
        decision.winner = winner->candidate;
        decision.winnerMicros = winner->timing.median;
        decision.gainFraction = (d.micros - winner->timing.median) / d.micros;
      }
    }
    previousWinner = decision.winner;
    decisions.push_back(decision);
  }
  return decisions;
}

std::vector<Band> mergeBands(const std::vector<SizeDecision>& decisions) {
  std::vector<Band> bands;
  int open = -1;  // the winner of the band being extended, or -1
  for (const SizeDecision& d : decisions) {
    if (d.winner >= 0 && d.winner == open) {
      bands.back().maxBytes = d.bytes;
      continue;
    }
    open = d.winner;
    if (d.winner >= 0) bands.push_back({d.winner, d.bytes, d.bytes});
  }
  return bands;
}

}  // namespace tune
}  // namespace flashccl
