// Does NCCL apply a table? NCCL's own record of every call (NCCL_DEBUG=INFO, subsystem TUNING)
// checked against the table's rows, as the plugin matches them: for each call in a row's band,
// NCCL must have run the row's algorithm and protocol, on at most its channels
// (docs/tuner.md, "Checking that it is applied").
#pragma once

#include <string>
#include <vector>

#include "nccl_log.h"
#include "tuning_table.h"

namespace flashccl {
namespace tune {

struct RowCheck {
  std::string source;  // "table.xml:12"
  std::string choice;  // "tree/ll, 2 channels"
  int calls = 0;       // calls NCCL logged in the row's band
  int applied = 0;     // of those, calls that ran the row's choice
  std::string firstMismatch;  // "allgather 262144 B ran ring/simple on 8 channels"
};

struct VerifyResult {
  int ranks = 0;
  int nodes = 0;
  std::string pluginSummary;  // the plugin's init line, "" when NCCL did not load it
  int callsLogged = 0;
  std::vector<RowCheck> rows;  // the rows that apply to the communicator, in table order
  std::vector<std::string> problems;
  bool passed() const;
};

VerifyResult verifyTable(const TuningTable& table, const NcclLog& log);

// PASS/FAIL lines, one per row, then the verdict.
std::string formatVerify(const VerifyResult& result, const std::string& tablePath);

}  // namespace tune
}  // namespace flashccl
