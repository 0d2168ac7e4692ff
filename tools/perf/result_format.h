// The textual views of a run: the terminal table (nccl-tests' columns for flashccl, with NCCL's time,
// the spread of both and the speedup beside them, printed row by row as sizes finish) and the
// markdown of bench/results/. Both return strings so tests can hold them against golden text.
#pragma once

#include <string>
#include <vector>

#include "run_report.h"

namespace flashccl {
namespace perf {

// printf into a std::string, however long.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// "# ..." lines: settings, devices, versions, commit, environment.
std::string formatRunHeader(const RunInfo& info);

// Title and column headings of one collective's table.
std::string formatTableHeader(Collective coll, const RunInfo& info);

// One row: the out-of-place and in-place results of one size (either may be null when --placement
// left it out). Ends with '\n'.
std::string formatRow(const SizeResult* outOfPlace, const SizeResult* inPlace, int nranks);

// After one collective's rows: average busbw of both libraries (over all results, as nccl-tests
// averages), the speedup's geometric mean and range, #wrong.
std::string formatTableFooter(const std::vector<SizeResult>& rows, int nranks);

// Last lines: nccl-tests' "Out of bounds values" and "Avg bus bandwidth" (flashccl's), and the verdict.
std::string formatRunFooter(const RunReport& report);

// Prints a run progressively: header first, then a row per size once its placements are in, opening
// a new table whenever the collective changes.
class TablePrinter {
 public:
  std::string begin(const RunInfo& info);
  std::string add(const SizeResult& result);
  std::string finish(const RunReport& report);

 private:
  std::string flushPending();
  RunInfo info_;
  std::vector<SizeResult> currentTable_;
  std::vector<SizeResult> pending_;  // an out-of-place result waiting for its in-place partner
};

std::string formatMarkdown(const RunReport& report);

// Results grouped by collective, in first-seen order (one table each).
std::vector<std::vector<SizeResult>> groupByCollective(const std::vector<SizeResult>& results);

// "eager" or "CUDA graph of 20 iterations, 5 replays".
std::string timingModeName(const RunInfo& info);

}  // namespace perf
}  // namespace flashccl
