// What `flashccl tune` asks of the library about this machine: its facts for the calibrated
// table's <measurement>, the directory `--install` writes to by default, and the shipped XML
// programs for a rank count. tune_machine.cc answers from flashccl_core (the library's own
// detection, so the table records what the library will compare at load); the perf-mock tests
// answer with fixed facts (tests/unit/tune/mock_tune_machine.cc).
#pragma once

#include <string>
#include <vector>

#include "candidates.h"
#include "topo/table_measurement.h"

namespace flashccl {
namespace tune {

// The NCCL version is left empty: the sweep's records say which NCCL perf ran.
TableMeasurement thisMachine();
// The per-user cache ($XDG_CACHE_HOME/flashccl, ~/.cache/flashccl); "" without either variable.
std::string defaultInstallDirectory();
// The XML programs for `ranks` ranks in the directory the library reads them from
// (FLASHCCL_ALGO_DIR, else the shipped algorithms/).
std::vector<FlashcclAlgorithm> shippedPrograms(int ranks);

}  // namespace tune
}  // namespace flashccl
