#include "selection_verify.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "base/coll_call.h"
#include "base/kernel_generation.h"
#include "selection_decision.h"
#include "size_list.h"
#include "tuning_xml.h"

namespace flashccl {
namespace tune {

namespace {

bool collectiveOf(const SelectionRow& row, perf::Collective* out) {
  return perf::parseCollective(collKindName(row.kind), out);
}

bool forRanks(const SelectionRow& row, int ranks) { return row.nranks == 0 || row.nranks == ranks; }

std::string bandText(const SelectionRow& row) {
  if (row.minBytes == 0 && row.maxBytes == 0) return "every size";
  if (row.minBytes == 0) return "up to " + sizeText(row.maxBytes);
  if (row.maxBytes == 0) return "from " + sizeText(row.minBytes);
  return sizeText(row.minBytes) + " - " + sizeText(row.maxBytes);
}

// The datatypes every selection run measures (perfArguments: -d and the conditions').
std::vector<perf::DataType> measuredTypes(const TuneOptions& options) {
  std::vector<perf::DataType> types = {options.dataType};
  for (const SelectionCondition& condition : selectionConditions())
    if (std::find(types.begin(), types.end(), condition.dataType) == types.end()) types.push_back(condition.dataType);
  return types;
}

// Rank 0's result for (collective, size, condition) in the selection runs, or null.
const perf::SizeResult* findResult(const std::vector<SweepRun>& runs, perf::Collective coll, size_t bytes,
                                   const SelectionCondition& condition) {
  for (const SweepRun& run : runs) {
    if (run.plan.kind != RunKind::kSelection || !run.outcome.haveRecord) continue;
    for (const perf::SizeResult& r : run.outcome.record.results)
      if (r.collective == coll && r.bytes == bytes && r.dataType == condition.dataType &&
          r.placement == condition.placement && r.cycle == 0)
        return &r;
  }
  return nullptr;
}

// Whether flashccl's column ran the row's algorithm: the library names an XML program by its file
// name without the directory.
bool ranRowsAlgorithm(const std::string& ran, const std::string& row) {
  const size_t slash = row.rfind('/');
  return ran == row || (slash != std::string::npos && ran == row.substr(slash + 1));
}

std::string sizesText(size_t count) { return std::to_string(count) + (count == 1 ? " size" : " sizes"); }

Timing timingOf(const perf::Spread& spread) { return {spread.median, spread.q1, spread.q3}; }

std::string at(size_t bytes, const SelectionCondition& condition) {
  return sizeText(bytes) + " (" + conditionLabel(condition) + ")";
}

// What ran, at each of the row's sizes and conditions, against what the row says. Empty when the
// row's choice ran correctly everywhere; else the first size where it did not, and *verdict.
std::string firstMismatch(const SelectionRow& row, perf::Collective coll, const std::vector<size_t>& sizes,
                          const std::vector<SweepRun>& runs, SelectionVerdict* verdict) {
  const bool nccl = row.algorithm == "nccl";
  for (size_t bytes : sizes) {
    for (const SelectionCondition& condition : selectionConditions()) {
      const perf::SizeResult* r = findResult(runs, coll, bytes, condition);
      if (!r) {
        *verdict = SelectionVerdict::kNotMeasured;
        return "not measured at " + at(bytes, condition) + ": no result in perf's record";
      }
      const bool applied = nccl ? r->algorithm == "NCCL" : ranRowsAlgorithm(r->algorithm, row.algorithm);
      if (!applied) {
        *verdict = SelectionVerdict::kNotApplied;
        const std::string ran = r->algorithm.empty() ? "nothing flashccl named" : r->algorithm;
        return "not applied at " + at(bytes, condition) + ": " + ran + " ran" + (nccl ? " instead of NCCL" : " instead");
      }
      if (r->checked && r->wrong > 0) {
        *verdict = SelectionVerdict::kWrongResults;
        return "wrong results at " + at(bytes, condition) + ": " + std::to_string(r->wrong) + " wrong elements";
      }
    }
  }
  return "";
}

// The sweep's decision (selection_decision.h) on this row's sizes, its algorithm the only candidate.
void judgeWinning(const SelectionRow& row, perf::Collective coll, const std::vector<size_t>& sizes,
                  const std::vector<SweepRun>& runs, const TuneOptions& options, SelectionRowCheck* check) {
  std::vector<SelectionSize> measured;
  for (size_t bytes : sizes) {
    SelectionSize size;
    size.bytes = bytes;
    for (const SelectionCondition& condition : selectionConditions()) {
      const perf::SizeResult* r = findResult(runs, coll, bytes, condition);  // firstMismatch found them all
      SizePoint point;
      point.bytes = bytes;
      point.defaults = {timingOf(r->timing.nccl)};
      point.candidates = {{0, timingOf(r->timing.flashccl), true}};
      size.conditions.push_back(point);
    }
    measured.push_back(size);
  }
  const std::vector<SelectionDecision> decisions =
      decideSelection(measured, options.marginPercent / 100.0, options.pick, {row.algorithm});
  check->minSpeedup = 1e300;
  for (const SelectionDecision& d : decisions) {
    check->minSpeedup = std::min(check->minSpeedup, d.speedup);
    check->maxSpread = std::max(check->maxSpread, d.spreadFraction);
    if (d.winner == 0) continue;
    char numbers[96];
    std::snprintf(numbers, sizeof(numbers), ": speedup %.2fx, spread %.1f%%", d.speedup, 100.0 * d.spreadFraction);
    check->verdict = SelectionVerdict::kNoLongerWins;
    check->detail = "no longer wins at " + sizeText(d.bytes) + numbers + (d.why.empty() ? "" : "; " + d.why);
    return;
  }
  char text[128];
  std::snprintf(text, sizeof(text), ", speedup %.2fx or more, spread %.1f%% at most", check->minSpeedup,
                100.0 * check->maxSpread);
  check->verdict = SelectionVerdict::kPass;
  check->detail = "wins at " + sizesText(sizes.size()) + text;
}

}  // namespace

SelectionToMeasure selectionToMeasure(const SelectionTable& table, int ranks, const TuneOptions& options) {
  SelectionToMeasure measure;
  const std::vector<size_t> grid = tuneSizes(options);
  const std::vector<perf::DataType> types = measuredTypes(options);
  for (perf::Collective coll : options.collectives) {
    std::vector<size_t> bytes;
    bool hasRows = false;
    for (const SelectionRow& row : table.rows) {
      perf::Collective rowColl;
      if (!collectiveOf(row, &rowColl) || rowColl != coll || !forRanks(row, ranks)) continue;
      hasRows = true;
      for (size_t size : grid)
        if (size >= row.minBytes && (row.maxBytes == 0 || size <= row.maxBytes)) bytes.push_back(size);
      for (size_t end : {row.minBytes, row.maxBytes}) {
        if (end == 0 || end < options.sizes.minBytes || end > options.sizes.maxBytes) continue;
        std::string problem;
        for (perf::DataType type : types)
          if (problem.empty()) problem = perf::sizeProblem(coll, end, type, ranks);
        if (problem.empty()) {
          bytes.push_back(end);
        } else {
          measure.unmeasurable.push_back(row.source + ": band end " + sizeText(end) + " not measured: " + problem);
        }
      }
    }
    if (!hasRows) continue;
    std::sort(bytes.begin(), bytes.end());
    bytes.erase(std::unique(bytes.begin(), bytes.end()), bytes.end());
    measure.collectives.push_back({coll, bytes});
  }
  return measure;
}

std::vector<PlannedRun> selectionRuns(const SelectionToMeasure& measure, const TuneOptions& options,
                                      const std::string& tablePath) {
  const std::vector<size_t> grid = tuneSizes(options);
  std::vector<perf::Collective> gridCollectives;
  size_t lowest = 0, highest = 0;
  std::map<size_t, std::vector<perf::Collective>> offGrid;
  for (const SelectionToMeasure::Sizes& sizes : measure.collectives) {
    for (size_t bytes : sizes.bytes) {
      if (std::find(grid.begin(), grid.end(), bytes) == grid.end()) {
        offGrid[bytes].push_back(sizes.collective);
        continue;
      }
      if (gridCollectives.empty() || gridCollectives.back() != sizes.collective)
        gridCollectives.push_back(sizes.collective);
      lowest = lowest == 0 ? bytes : std::min(lowest, bytes);
      highest = std::max(highest, bytes);
    }
  }
  std::vector<PlannedRun> runs;
  // From a size -f reaches, -f reaches the same sizes as from -b.
  if (!gridCollectives.empty()) runs.push_back(selectionRun(tablePath, gridCollectives, lowest, highest));
  for (const auto& end : offGrid) runs.push_back(selectionRun(tablePath, end.second, end.first, end.first));
  return runs;
}

std::string unmeasuredSelection(const TopologyDescription& table) {
  if (table.table.unmeasured) return "its <selection> has no measured attribute, or measured=\"no\"";
  if (!table.hasMeasurement) return "it records no <measurement>";
  if (table.measurement.kernels < kKernelGeneration)
    return "it was measured on kernel generation " + std::to_string(table.measurement.kernels) +
           ", this library runs " + std::to_string(kKernelGeneration);
  return "";
}

bool SelectionVerifyResult::passed() const {
  if (!problems.empty()) return false;
  int checked = 0;
  for (const SelectionRowCheck& row : rows) {
    if (row.verdict == SelectionVerdict::kSkip) continue;
    if (row.verdict != SelectionVerdict::kPass) return false;
    ++checked;
  }
  return checked > 0;
}

SelectionVerifyResult verifySelection(const TopologyDescription& table, const std::vector<SweepRun>& runs,
                                      const TuneOptions& options, bool armsUnmeasured) {
  SelectionVerifyResult result;
  const PluginInit* init = nullptr;
  for (const SweepRun& run : runs)
    if (!init && run.plan.kind == RunKind::kSelection && !run.outcome.log.inits.empty())
      init = &run.outcome.log.inits.front();
  if (!init) {
    result.problems.push_back("no selection run left NCCL's line of the tuner plugin (the communicator's ranks and "
                              "nodes are unknown)");
    return result;
  }
  result.ranks = init->ranks;
  result.nodes = init->nodes;
  const SelectionToMeasure measure = selectionToMeasure(table.table, result.ranks, options);
  result.notes.insert(result.notes.end(), measure.unmeasurable.begin(), measure.unmeasurable.end());

  for (const SelectionRow& row : table.table.rows) {
    if (!forRanks(row, result.ranks) || (row.nnodes != 0 && row.nnodes != result.nodes)) continue;  // another communicator's
    SelectionRowCheck check;
    check.source = row.source;
    check.collective = collKindName(row.kind);
    check.band = bandText(row);
    check.algorithm = row.algorithm;
    perf::Collective coll;
    const SelectionToMeasure::Sizes* measured = nullptr;
    if (collectiveOf(row, &coll))
      for (const SelectionToMeasure::Sizes& sizes : measure.collectives)
        if (sizes.collective == coll) measured = &sizes;
    if (row.unmeasured && !armsUnmeasured && row.algorithm != "nccl") {
      check.detail = "in a <group measured=\"no\">: the library forwards it to NCCL unless FLASHCCL_UNMEASURED=1";
      result.rows.push_back(check);
      continue;
    }
    if (!measured) {
      check.detail = "not measured: --coll leaves out " + check.collective;
      result.rows.push_back(check);
      continue;
    }
    // The sizes this row decides: the Selector takes the first row that matches.
    std::vector<size_t> sizes;
    for (size_t bytes : measured->bytes)
      if (table.table.firstMatch(row.kind, result.ranks, result.nodes, bytes) == &row) sizes.push_back(bytes);
    if (sizes.empty()) {
      check.detail = "no measured size falls to it (-b " + sizeText(options.sizes.minBytes) + " -e " +
                     sizeText(options.sizes.maxBytes) + ", and the rows before it)";
      result.rows.push_back(check);
      continue;
    }
    check.detail = firstMismatch(row, coll, sizes, runs, &check.verdict);
    if (!check.detail.empty()) {
      result.rows.push_back(check);
      continue;
    }
    if (row.algorithm == "nccl") {
      check.verdict = SelectionVerdict::kPass;
      check.detail = "NCCL ran at " + sizesText(sizes.size());
    } else {
      judgeWinning(row, coll, sizes, runs, options, &check);
    }
    result.rows.push_back(check);
  }
  if (result.rows.empty())
    result.problems.push_back("no <selection> row of the table applies to " + std::to_string(result.ranks) +
                              " ranks, " + std::to_string(result.nodes) + " nodes");
  return result;
}

std::string formatSelectionVerify(const SelectionVerifyResult& result, const std::string& tablePath) {
  std::string text = "# flashccl's selection with " + tablePath + " (" + std::to_string(result.ranks) + " ranks, " +
                     std::to_string(result.nodes) +
                     " nodes; fp32 and bf16, in place and out of place, against NCCL's default)\n";
  for (const std::string& note : result.notes) text += "# note: " + note + "\n";
  for (const SelectionRowCheck& row : result.rows) {
    const char* word = row.verdict == SelectionVerdict::kPass ? "PASS  " : row.verdict == SelectionVerdict::kSkip ? "SKIP  " : "FAIL  ";
    text += word + row.source + " " + row.collective + " " + row.band + " " + row.algorithm + ": " + row.detail + "\n";
  }
  for (const std::string& problem : result.problems) text += "FAIL  " + problem + "\n";
  text += result.passed() ? "# PASS: flashccl's selection rows still hold\n"
                          : "# FAIL: flashccl's selection rows do not all hold\n";
  return text;
}

}  // namespace tune
}  // namespace flashccl
