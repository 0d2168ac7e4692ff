// Which tuning table a communicator gets. Decided at each init (NCCL tells the plugin only the
// ranks, nodes and NVLink domains), in this order:
//
//   1. FLASHCCL_TUNER_FORCE: forced choices (forced_choice.h), no table.
//   2. FLASHCCL_TUNER_FILE: that file's <tuning> (a tuning-only file or a whole topology file;
//      a path, or the name of a shipped topology).
//   3. FLASHCCL_TOPO_FILE: the topology file flashccl was told to use, so both read one file.
//   4. An installed calibrated table (`flashccl tune --install`) in FLASHCCL_TABLE_DIR, the
//      per-user cache or /etc/flashccl that matches this machine, was measured on the NCCL that
//      loaded the plugin and has <tuning> rows for the communicator (calibrated_tuning.h); each
//      table refused is an INFO line, and the next is tried.
//   5. The topologies/*.xml file that matches this machine (NVML: GPU names and count, how
//      they are joined), chosen as the library chooses it; its <tuning>, if it has one.
//
// Steps 1 to 3: the first variable that is set decides: a broken value is one WARN and no table (NCCL keeps its
// own choices), never a fall-through to the next step, which would make the outcome depend on
// what happens to be installed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "calibrated_tuning.h"
#include "topo/topology.h"
#include "tuning_table.h"

namespace flashccl {

struct TunerEnvironment {
  std::string force;      // FLASHCCL_TUNER_FORCE
  std::string tunerFile;  // FLASHCCL_TUNER_FILE
  std::string topoFile;   // FLASHCCL_TOPO_FILE
  std::string tableDir;   // FLASHCCL_TABLE_DIR

  static TunerEnvironment fromProcess();
};

struct TableChoice {
  TuningTable table;    // no rows: NCCL chooses everything
  std::string why;      // for the INFO line: where the table came from, or why there is none
  std::string warning;  // set when something the user wrote is broken: the one WARN
  std::vector<std::string> notes;  // INFO lines: calibrated tables refused (step 4)
};

// Detects the machine for steps 4 and 5; no GPUs (and *why) when it cannot.
using MachineProbe = std::function<Topology(std::string* why)>;

// `calibrated` without directories skips step 4.
TableChoice chooseTuningTable(const TunerEnvironment& environment,
                              const std::vector<std::string>& topologyDirs,
                              const MachineProbe& probe,
                              const CalibratedSearch& calibrated = CalibratedSearch());

}  // namespace flashccl
