// How `flashccl tune` decides, per collective (docs/tuner.md, "flashccl tune"):
//
//   1. At each measured size, NCCL's default time is the median of the default's medians over every
//      run that measured it (the baseline runs, and the NCCL column of flashccl's runs).
//   2. The spread at that size is how far apart those runs' medians are (the run-to-run spread,
//      (max - min) / median), plus the larger of the widest interquartile range of one of those
//      runs over its block pairs and the candidate's own interquartile range, each relative to the
//      default's time (the unit of the gain). A choice is measured in one run: that run may have caught a quiet moment of the
//      machine, as far from the default's typical run as the default's runs are apart, on top of
//      the noise within a run.
//   3. A forced choice wins the size when it is available (NCCL did not refuse it) and faster than
//      the default by more than spread + margin; of several, the fastest. If the previous size's
//      winner also wins here and is within the spread of the fastest, it keeps the size, so noise
//      between near-equal choices does not cut a band into pieces. Equal times go to the choice
//      listed first.
//   4. Adjacent sizes with the same winner form one band, from the first size to the last (both
//      inclusive). Sizes no choice won, between two bands of different winners, and outside the
//      measured range stay with NCCL.
//
// PickRule::kFastest (for testing that NCCL applies a table) makes the fastest available forced
// choice the winner at every size, whatever the default's time.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace flashccl {
namespace tune {

// One run's times for one (collective, size): the median and quartiles of its block pairs (us).
struct Timing {
  double median = 0.0;
  double q1 = 0.0;
  double q3 = 0.0;
  double iqrFraction() const { return median > 0 ? (q3 - q1) / median : 0.0; }
};

struct CandidateTiming {
  int candidate = 0;       // index into the sweep's NCCL choices
  Timing timing;
  bool available = true;   // false: NCCL refused the choice, its time was NCCL's own
};

struct SizePoint {
  size_t bytes = 0;
  std::vector<Timing> defaults;  // one per run that measured NCCL's default here
  std::vector<CandidateTiming> candidates;
};

struct SizeDecision {
  size_t bytes = 0;
  double defaultMicros = 0.0;       // step 1
  double runToRunFraction = 0.0;    // how far apart the default's runs were
  double spreadFraction = 0.0;      // step 2, for the winner (or the fastest candidate)
  int fastest = -1;                 // the fastest available candidate (-1: none measured)
  double fastestMicros = 0.0;
  int winner = -1;                  // -1: NCCL's default stays
  double winnerMicros = 0.0;
  double gainFraction = 0.0;        // (default - winner) / default; of the fastest when none won
  double requiredFraction = 0.0;    // spread + margin the winner had to beat
};

struct Band {
  int winner = 0;
  size_t minBytes = 0;  // inclusive, both
  size_t maxBytes = 0;
};

enum class PickRule {
  kSignificant,  // a forced choice wins only beyond the measured spread plus the margin
  kFastest,      // the fastest available forced choice at every size (to test tables, not to ship)
};

// Steps 1 and 2 for one candidate at one size: NCCL's default time (us) and the spread the
// candidate's gain must beat before the margin (a fraction of the default's time).
struct DefaultSpread {
  double defaultMicros = 0.0;
  double spreadFraction = 0.0;
};
DefaultSpread spreadAgainstDefault(const std::vector<Timing>& defaults, const Timing& candidate);

// `points` in increasing size order; `marginFraction` is --margin / 100.
std::vector<SizeDecision> decideSizes(const std::vector<SizePoint>& points, double marginFraction,
                                      PickRule rule);
std::vector<Band> mergeBands(const std::vector<SizeDecision>& decisions);

}  // namespace tune
}  // namespace flashccl
