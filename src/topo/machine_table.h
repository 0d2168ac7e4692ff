// The selection table a communicator on this machine uses:
//   1. FLASHCCL_TOPO_FILE, when set (a path, or the name of a shipped topology);
//   2. else the topologies/*.xml description that matches the detected machine, looked up in
//      <dir of the library holding this code>/../share/flashccl/topologies, then in the source
//      tree's topologies/ (so a build tree works without installing);
//   3. else, or when the chosen description has no row for the communicator's rank count, the
//      compiled-in builtinSelectionTable().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "topo/selection_table.h"
#include "topo/topology.h"
#include "topo/topology_file.h"

namespace flashccl {

// Which description applies to a machine, and why (steps 1 and 2 above).
struct MachineTopologyChoice {
  std::shared_ptr<const TopologyDescription> description;  // null: use the built-in table
  std::string why;                     // "FLASHCCL_TOPO_FILE", "matches <summary>", or why none
  std::string directory;               // the topology directory used ("" = none found)
  std::vector<std::string> warnings;   // files skipped, an unusable override, overlaps
};

// Directories searched for topologies, in order (see above). The first that exists is used;
// like MSCCL's algorithm directories, they are not merged.
std::vector<std::string> defaultTopologyDirs();
std::string firstExistingDirectory(const std::vector<std::string>& dirs);

// `reference` is a path to a topology file, or the name of a topology in `directory`
// (e.g. "hopper-8gpu-nvswitch"). False with *error set when neither works.
bool loadTopologyReference(const std::string& reference, const std::string& directory,
                           TopologyDescription* out, std::string* error);

// Steps 1 and 2 for `machine`. `topoFile` is FLASHCCL_TOPO_FILE ("" = unset); an override that
// cannot be used is reported in warnings and step 2 runs instead (fallback is always correct).
MachineTopologyChoice chooseMachineTopology(const std::string& topoFile,
                                            const std::vector<std::string>& searchDirs,
                                            const Topology& machine);

// Step 3: the choice's table if it has rows for `nranks` ranks on `nnodes` nodes, else
// builtinSelectionTable(). *source says which table and why, for logs and `flashccl plan`.
const SelectionTable& selectionTableFor(const MachineTopologyChoice& choice, int nranks,
                                        std::string* source, int nnodes = 1);

// All three steps for this process (Config::get().topoFile, localTopology(),
// defaultTopologyDirs()); the machine part runs once, logs what it found, and is cached.
// Thread-safe. The returned table lives until the process exits.
const SelectionTable& selectionTableForThisMachine(int nranks, std::string* source, int nnodes = 1);

}  // namespace flashccl
