// The three textual views of a run: the terminal table (nccl-tests style, printed row by row as sizes
// finish), JSON (every number, including the per-pair samples) and markdown (what goes into
// bench/results/). All return strings so tests can hold them against golden text.
#pragma once

#include <string>
#include <vector>

#include "run_report.h"

namespace flashccl {
namespace perf {

// "# ..." lines: settings, devices, versions, environment.
std::string formatRunHeader(const RunInfo& info);

// Title and column headings of one collective's table.
std::string formatTableHeader(Collective coll, const RunInfo& info);

// One row (ends with '\n').
std::string formatRow(const SizeResult& result, int nranks);

// Summary line(s) after one collective's rows: average busbw of both libraries (over all rows, as
// nccl-tests averages), the speedup's geometric mean and range, #wrong.
std::string formatTableFooter(const std::vector<SizeResult>& rows, int nranks);

// Last line(s): total #wrong and the verdict.
std::string formatRunFooter(const RunReport& report);

// Prints a run progressively: header first, then rows, opening a new table whenever the collective
// changes. Each call returns the text to print.
class TablePrinter {
 public:
  std::string begin(const RunInfo& info);
  std::string add(const SizeResult& result);
  std::string finish(const RunReport& report);

 private:
  RunInfo info_;
  std::vector<SizeResult> currentTable_;
};

std::string formatJson(const RunReport& report);
std::string formatMarkdown(const RunReport& report);

// Results grouped by collective, in first-seen order (one table each).
std::vector<std::vector<SizeResult>> groupByCollective(const std::vector<SizeResult>& results);

// Describes the timing mode: "eager" or "CUDA graph, 20 operations per graph".
std::string timingModeName(const RunInfo& info);

}  // namespace perf
}  // namespace flashccl
