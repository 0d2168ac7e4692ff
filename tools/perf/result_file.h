// The file through which rank 0 of a --procs run hands its report to the parent process, which writes
// the JSON, markdown and plot. Line-oriented, tab-separated, versioned; rank 0 appends and flushes one
// line per result as it goes, so a run that dies half-way still leaves the rows it finished.
#pragma once

#include <string>

#include "run_report.h"

namespace flashccl {
namespace perf {

std::string serializeRunInfo(const RunInfo& info);  // the file's first lines
std::string serializeResult(const SizeResult& result);  // one line
std::string serializeEnd();  // the last line: marks a complete report

// False (with *error) for a malformed file. *complete says whether the end line was there.
bool parseResultFile(const std::string& text, RunReport* report, bool* complete, std::string* error);

}  // namespace perf
}  // namespace flashccl
