// Which of flashccl's own algorithms a calibrated table arms (docs/tuner.md, "flashccl tune",
// "The selection rows"), per collective and size:
//
//   A size is measured under several conditions: bf16 and fp32 sum, in place and out of place
//   (what a call of the job may be; the table has no column for either, so a row must hold for
//   all of them). Under each, NCCL's default and its spread are those of band_picker.h (the
//   default's runs, their run-to-run spread and interquartile ranges), and the candidates are the
//   algorithms forced through FLASHCCL_ALGO that really ran (not forwarded) and were right.
//   An algorithm wins the size when it beats the default by more than spread + margin under every
//   condition; of several, the one whose smallest gain is largest (ties: the first listed).
//   Adjacent sizes with the same winner form one band; a size it loses splits the band; every
//   other size says `nccl`.
//
// PickRule::kFastest: the fastest algorithm that ran under every condition wins each size,
// whatever NCCL's time: for checking that a job runs what a table names, never to ship.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "band_picker.h"
#include "perf_types.h"

namespace flashccl {
namespace tune {

// One measurement condition of a size: datatype and placement.
struct SelectionCondition {
  perf::DataType dataType = perf::DataType::kFloat;
  perf::Placement placement = perf::Placement::kOutOfPlace;
};

// What a selection row must hold for, in the order the report shows them (the first is the one
// whose times the report prints).
const std::vector<SelectionCondition>& selectionConditions();

// One size: a SizePoint per condition (candidates are indices into the algorithm list).
struct SelectionSize {
  size_t bytes = 0;
  std::vector<SizePoint> conditions;  // selectionConditions() order; a missing one counts as lost
};

struct SelectionDecision {
  size_t bytes = 0;
  int winner = -1;            // -1: the row says nccl
  int best = -1;              // the fastest algorithm under the first condition (-1: none ran)
  double ncclMicros = 0.0;    // NCCL's default, first condition
  double bestMicros = 0.0;    // `winner`'s time (else `best`'s), first condition
  double speedup = 0.0;       // ncclMicros / bestMicros (0: nothing ran)
  double spreadFraction = 0.0;  // the largest spread over the conditions, for the same algorithm
  std::string why;            // for the report when winner < 0: "no algorithm ran", "bf16 in place: ..."
};

struct SelectionBand {
  int winner = 0;
  size_t minBytes = 0;  // both inclusive
  size_t maxBytes = 0;
  double minSpeedup = 0.0;  // the smallest speedup over the band's sizes
  double maxSpread = 0.0;   // the largest spread
};

// `sizes` in increasing order; `names[i]` names candidate i (for the words only).
std::vector<SelectionDecision> decideSelection(const std::vector<SelectionSize>& sizes, double marginFraction,
                                               PickRule rule, const std::vector<std::string>& names);
std::vector<SelectionBand> selectionBands(const std::vector<SelectionDecision>& decisions);

// "fp32 out of place", "bf16 in place".
std::string conditionLabel(const SelectionCondition& condition);

}  // namespace tune
}  // namespace flashccl
