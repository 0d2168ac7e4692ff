// Which tuning table a communicator gets. Decided at each init (NCCL tells the plugin only the
// ranks, nodes and NVLink domains), in this order:
//
//   1. FLASHCCL_TUNER_FORCE: forced choices (forced_choice.h), no table.
//   2. FLASHCCL_TUNER_FILE: that file's <tuning> (a tuning-only file or a whole topology file;
//      a path, or the name of a shipped topology).
//   3. FLASHCCL_TOPO_FILE: the topology file flashccl was told to use, so both read one file.
//   4. The topologies/*.xml file that matches this machine (NVML: GPU names and count, how
//      they are joined), chosen as the library chooses it; its <tuning>, if it has one.
//
// The first variable that is set decides: a broken value is one WARN and no table (NCCL keeps its
// own choices), never a fall-through to the next step, which would make the outcome depend on
// what happens to be installed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "topo/topology.h"
#include "tuning_table.h"

namespace flashccl {

struct TunerEnvironment {
  std::string force;      // FLASHCCL_TUNER_FORCE
  std::string tunerFile;  // FLASHCCL_TUNER_FILE
  std::string topoFile;   // FLASHCCL_TOPO_FILE

  static TunerEnvironment fromProcess();
};

struct TableChoice {
  TuningTable table;    // no rows: NCCL chooses everything
  std::string why;      // for the INFO line: where the table came from, or why there is none
  std::string warning;  // set when something the user wrote is broken: the one WARN
};

// Detects the machine for step 4; no GPUs (and *why) when it cannot.
using MachineProbe = std::function<Topology(std::string* why)>;

TableChoice chooseTuningTable(const TunerEnvironment& environment,
                              const std::vector<std::string>& topologyDirs,
                              const MachineProbe& probe);

}  // namespace flashccl
