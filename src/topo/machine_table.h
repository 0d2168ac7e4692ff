// The selection table a communicator on this machine uses (docs/topologies.md, section 1):
//   1. FLASHCCL_TOPO_FILE, when set (a path, or the name of a shipped topology);
//   2. else a calibrated table (`flashccl tune --install`) that matches the machine, whose
//      <measurement> still holds and that has rows for the communicator: in FLASHCCL_TABLE_DIR,
//      then $XDG_CACHE_HOME/flashccl (~/.cache/flashccl), then /etc/flashccl. A table whose
//      measurement no longer holds is refused with an INFO line and the next one is tried;
//   3. else the shipped topologies/*.xml description that matches the detected machine, looked up in
//      <dir of the library holding this code>/../share/flashccl/topologies, then in the source
//      tree's topologies/ (so a build tree works without installing);
//   4. else, or when the chosen description has no row for the communicator's rank count, the
//      compiled-in builtinSelectionTable().
// A table (other than a calibrated one, which step 2 already checked) whose <measurement> names an
// older kernel generation than kKernelGeneration, or none, counts as unmeasured.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/data_dirs.h"
#include "topo/selection_table.h"
#include "topo/table_measurement.h"
#include "topo/topology.h"
#include "topo/topology_file.h"

namespace flashccl {

// Which description applies to a machine, and why (steps 1 and 2 above).
struct MachineTopologyChoice {
  std::shared_ptr<const TopologyDescription> description;  // null: use the built-in table
  std::string why;                     // "FLASHCCL_TOPO_FILE", "matches <summary>", or why none
  std::string directory;               // the topology directory used ("" = none found)
  std::vector<std::string> warnings;   // files skipped, an unusable override, overlaps
  // Step 2's tables that hold on this machine, in lookup order; tried before `description`.
  std::vector<std::shared_ptr<const TopologyDescription>> calibrated;
  std::vector<std::string> notes;      // INFO lines: tables refused, tables counted unmeasured
};

// Step 2's directories: calibratedTableDirs() (base/data_dirs.h; the tuner plugin searches them too).

// Directories searched for topologies, in order (see above). The first that exists is used;
// like MSCCL's algorithm directories, they are not merged.
std::vector<std::string> defaultTopologyDirs();
std::string firstExistingDirectory(const std::vector<std::string>& dirs);

// `reference` is a path to a topology file, or the name of a topology in `directory`
// (e.g. "hopper-8gpu-nvswitch"). False with *error set when neither works.
bool loadTopologyReference(const std::string& reference, const std::string& directory,
                           TopologyDescription* out, std::string* error);

// Steps 1 to 3 for `machine`. `topoFile` is FLASHCCL_TOPO_FILE ("" = unset); an override that
// cannot be used is reported in warnings and step 2 runs instead (fallback is always correct).
// Step 2 runs only with `now` (what this process runs on, compared with each table's
// <measurement>).
MachineTopologyChoice chooseMachineTopology(const std::string& topoFile,
                                            const std::vector<std::string>& searchDirs,
                                            const Topology& machine,
                                            const std::vector<std::string>& calibratedDirs = {},
                                            const TableMeasurement* now = nullptr);

// Step 4: the first calibrated table with rows for `nranks` ranks on `nnodes` nodes, else the
// shipped description's if it has such rows, else builtinSelectionTable(). *source says which
// table and why, for logs and `flashccl plan`.
const SelectionTable& selectionTableFor(const MachineTopologyChoice& choice, int nranks,
                                        std::string* source, int nnodes = 1);

// All three steps for this process (Config::get().topoFile, localTopology(),
// defaultTopologyDirs()); the machine part runs once, logs what it found, and is cached.
// Thread-safe. The returned table lives until the process exits.
const SelectionTable& selectionTableForThisMachine(int nranks, std::string* source, int nnodes = 1);

}  // namespace flashccl
