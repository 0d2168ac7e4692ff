// Do a table's <selection> rows still hold on this machine? `flashccl tune --verify TABLE`
// re-measures them (docs/tuner.md, "Checking flashccl's selection rows"):
//
//   The perf runs tell the library to use exactly TABLE (FLASHCCL_TOPO_FILE) and leave NCCL on its
//   own default (FLASHCCL_TUNER_FORCE=nccl, as the sweep measured it), under every condition a row
//   must hold for (selection_decision.h: fp32 and bf16, in place and out of place). Each row for
//   the communicator is measured at the sizes of its band within -b/-e: its two ends and the
//   sweep's sizes (-b times -f) between them; a size belongs to the first row that matches it, as
//   in the library's Selector.
//
//   A row naming a flashccl algorithm passes when, at every one of its sizes and conditions, that
//   algorithm ran (perf's `algorithm`, flashcclLastAlgorithm), its results were right, and it still
//   beats NCCL by the rule that arms a band in the sweep (decideSelection with --margin and --pick;
//   one run, so the spread is the runs' interquartile ranges). A `nccl` row passes when NCCL ran.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sweep_plan.h"
#include "sweep_results.h"
#include "topo/topology_file.h"
#include "tune_options.h"

namespace flashccl {
namespace tune {

// A table's selection as the library would see it on `ranks` ranks (any node count: the runs
// tell how many nodes NCCL counted): the collectives and sizes to measure.
struct SelectionToMeasure {
  struct Sizes {
    perf::Collective collective = perf::Collective::kAllReduce;
    std::vector<size_t> bytes;  // increasing
  };
  std::vector<Sizes> collectives;      // those of --coll with rows for `ranks`
  std::vector<std::string> unmeasurable;  // "allgather 1000 B (t.xml:9): ..." band ends perf cannot run
};
SelectionToMeasure selectionToMeasure(const SelectionTable& table, int ranks, const TuneOptions& options);

// The runs that measure them: one over -b to -e of the sizes that -f reaches (trimmed to those
// needed), one more for each band end it does not.
std::vector<PlannedRun> selectionRuns(const SelectionToMeasure& measure, const TuneOptions& options,
                                      const std::string& tablePath);

enum class SelectionVerdict { kPass, kNoLongerWins, kNotApplied, kWrongResults, kNotMeasured, kSkip };

struct SelectionRowCheck {
  std::string source;      // "table.xml:12"
  std::string collective;  // "allreduce"
  std::string band;        // "1K - 64K", "from 1M", "every size"
  std::string algorithm;   // the row's: a flashccl algorithm or "nccl"
  SelectionVerdict verdict = SelectionVerdict::kSkip;
  double minSpeedup = 0.0;  // kPass of a flashccl row: over its sizes
  double maxSpread = 0.0;
  std::string detail;      // what failed, where: "at 64K: speedup 1.01x, spread 3.0%; ..."
};

struct SelectionVerifyResult {
  int ranks = 0;
  int nodes = 0;
  std::vector<SelectionRowCheck> rows;  // the rows for the communicator, in table order
  std::vector<std::string> problems;    // each fails the check
  std::vector<std::string> notes;       // said, but fail nothing
  bool passed() const;                  // no problem, no failed row, and some row checked
};

// Why the library, told to use `table` (FLASHCCL_TOPO_FILE), counts it as unmeasured and arms none
// of its rows unless FLASHCCL_UNMEASURED=1 (topo/machine_table.h), or "" when it arms them.
std::string unmeasuredSelection(const TopologyDescription& table);

// `runs`: the finished selectionRuns (rank 0's records and NCCL logs). `armsUnmeasured`: whether
// FLASHCCL_UNMEASURED=1 arms rows of a <group measured="no"> (else they are SKIPped).
SelectionVerifyResult verifySelection(const TopologyDescription& table, const std::vector<SweepRun>& runs,
                                      const TuneOptions& options, bool armsUnmeasured);

// PASS/FAIL/SKIP lines, one per row, then the verdict (formatVerify's style).
std::string formatSelectionVerify(const SelectionVerifyResult& result, const std::string& tablePath);

}  // namespace tune
}  // namespace flashccl
