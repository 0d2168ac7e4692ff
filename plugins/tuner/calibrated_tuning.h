// The tuner plugin's own lookup of an installed calibrated table (`flashccl tune --install`),
// in the directories the library searches (calibratedTableDirs: FLASHCCL_TABLE_DIR, the per-user
// cache, /etc/flashccl). A table is used when it matches the machine (its <match>), records a
// <measurement> whose nccl= is the NCCL that loaded the plugin (its <tuning> rows were timed on
// that NCCL's algorithms), and has <tuning> rows for the communicator. The library also compares
// the driver, the CUDA runtime and flashccl's kernels; those do not change NCCL's choices, and the
// plugin must not load the CUDA runtime to learn them (docs/tuner.md, "Calibrated tables").
#pragma once

#include <string>
#include <vector>

#include "topo/topology.h"
#include "tuning_table.h"

namespace flashccl {

struct CalibratedSearch {
  std::vector<std::string> dirs;  // in order; empty: no calibrated lookup
  std::string ncclVersion;        // of the NCCL that loaded the plugin; "" = unknown
  std::string ncclVersionWhy;     // why it is unknown
  int nRanks = 0;
  int nNodes = 0;
};

struct CalibratedTuning {
  bool found = false;
  TuningTable table;               // when found
  std::string path;                // when found
  std::vector<std::string> notes;  // one INFO line per table refused, saying why
};

CalibratedTuning findCalibratedTuning(const CalibratedSearch& search, const Topology& machine);

}  // namespace flashccl
