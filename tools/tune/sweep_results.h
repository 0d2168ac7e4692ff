// The sweep's perf records turned into what the decision and the report need: for each collective
// and size, NCCL's default as every run measured it, each forced choice (and whether NCCL
// refused it), flashccl's algorithms, and the run with the written table.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "band_picker.h"
#include "perf_launcher.h"
#include "perf_types.h"
#include "selection_decision.h"
#include "sweep_plan.h"

namespace flashccl {
namespace tune {

struct FlashcclTiming {
  std::string algorithm;  // what flashccl ran ("allreduce_oneshot"; "NCCL" when it forwarded)
  Timing timing;
  bool forced = false;    // from FLASHCCL_ALGO; false: flashccl's own table chose it (baseline runs)
  bool wrong = false;     // perf's check found wrong results
};

struct SizeResults {
  size_t bytes = 0;
  SizePoint point;                       // the default's and every choice's times
  std::vector<FlashcclTiming> flashccl;  // every run's flashccl column that counts
  bool haveWithTable = false;
  Timing withTable;
};

struct CollectiveResults {
  perf::Collective collective = perf::Collective::kAllReduce;
  std::vector<SizeResults> sizes;  // increasing
  std::vector<int> refused;        // choices NCCL refused for this collective (their times are not kept)
};

struct SweepRun {
  PlannedRun plan;
  RunOutcome outcome;
};

// `sizes` are the measured sizes, `runs` the finished runs (the sweep's, and the run with the table
// if there was one). Results perf did not produce are simply absent.
std::vector<CollectiveResults> collectResults(const std::vector<perf::Collective>& collectives,
                                              const std::vector<size_t>& sizes, perf::DataType dataType,
                                              const std::vector<SweepRun>& runs);

// The selection's inputs for `coll` (selection_decision.h): at each size and condition, NCCL's
// column of every baseline and flashccl run, and the flashccl column of each run that forced one
// of `algorithms` (candidate i = algorithms[i]) where it ran that algorithm correctly.
std::vector<SelectionSize> collectSelection(perf::Collective coll, const std::vector<size_t>& sizes,
                                            const std::vector<SweepRun>& runs,
                                            const std::vector<FlashcclAlgorithm>& algorithms);

// Whether flashccl's column ran the forced algorithm (not NCCL, not a fallback "a / b").
bool ranForcedAlgorithm(const std::string& algorithm);

// The fastest flashccl timing at a size that ran flashccl's own kernels correctly, or null.
const FlashcclTiming* bestFlashccl(const SizeResults& size);

}  // namespace tune
}  // namespace flashccl
