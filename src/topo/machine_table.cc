#include "topo/machine_table.h"

#include "base/config.h"
#include "base/data_dirs.h"
#include "base/log.h"
#include "topo/builtin_table.h"
#include "topo/machine_match.h"
#include "topo/topology_detect.h"

namespace flashccl {

std::vector<std::string> defaultTopologyDirs() { return dataDirectories("topologies"); }

std::string firstExistingDirectory(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    if (isDirectory(dir)) return resolvedPath(dir);
  }
  return "";
}

bool loadTopologyReference(const std::string& reference, const std::string& directory,
                           TopologyDescription* out, std::string* error) {
  if (isRegularFile(reference)) return parseTopologyFile(reference, out, error);
  // Not a file: a topology name, looked up among the descriptions of `directory`.
  if (reference.find('/') == std::string::npos && !directory.empty()) {
    // The shipped file's name works as well as the topology's: "hopper-8gpu-nvswitch.xml".
    const bool xml = reference.size() > 4 && reference.compare(reference.size() - 4, 4, ".xml") == 0;
    const std::string name = xml ? reference.substr(0, reference.size() - 4) : reference;
    std::vector<std::string> warnings;
    for (TopologyDescription& description : loadTopologyDirectory(directory, &warnings)) {
      if (description.name == name) {
        *out = std::move(description);
        return true;
      }
    }
    if (error) *error = reference + ": no such file, and no topology of that name in " + directory;
    return false;
  }
  if (error) *error = reference + ": no such file";
  return false;
}

MachineTopologyChoice chooseMachineTopology(const std::string& topoFile,
                                            const std::vector<std::string>& searchDirs,
                                            const Topology& machine) {
  MachineTopologyChoice choice;
  choice.directory = firstExistingDirectory(searchDirs);
  if (!topoFile.empty()) {
    auto description = std::make_shared<TopologyDescription>();
    std::string error;
    if (loadTopologyReference(topoFile, choice.directory, description.get(), &error)) {
      choice.description = description;
      choice.why = "FLASHCCL_TOPO_FILE=" + topoFile;
      std::string whyNot;
      if (!machine.gpus.empty() && !descriptionMatches(*description, machine, &whyNot)) {
        // Allowed (that is what an override is for), but worth a line in the log.
        choice.warnings.push_back("FLASHCCL_TOPO_FILE=" + topoFile + ": '" + description->name +
                                  "' does not describe this machine (" + whyNot +
                                  "); using it as asked");
      }
      return choice;
    }
    choice.warnings.push_back("FLASHCCL_TOPO_FILE=" + topoFile + ": " + error + "; ignored");
  }

  if (choice.directory.empty()) {
    std::string looked;
    for (const std::string& dir : searchDirs) looked += (looked.empty() ? "" : ", ") + dir;
    choice.why = "no topology directory (looked in " + (looked.empty() ? "nothing" : looked) + ")";
    return choice;
  }
  std::vector<TopologyDescription> descriptions =
      loadTopologyDirectory(choice.directory, &choice.warnings);
  if (machine.gpus.empty()) {
    choice.why = "no GPU detected";
    return choice;
  }
  std::vector<std::string> others;
  const TopologyDescription* found = findMatchingDescription(descriptions, machine, &others);
  if (found == nullptr) {
    choice.why = "no topology in " + choice.directory + " matches " + machine.summary();
    return choice;
  }
  if (!others.empty()) {
    std::string names;
    for (const std::string& name : others) names += (names.empty() ? "" : ", ") + name;
    choice.warnings.push_back("topologies " + names + " also match this machine; using " +
                              found->name + " (first in file-name order)");
  }
  choice.description = std::make_shared<TopologyDescription>(*found);
  choice.why = "matches " + machine.summary();
  return choice;
}

const SelectionTable& selectionTableFor(const MachineTopologyChoice& choice, int nranks,
                                        std::string* source, int nnodes) {
  if (choice.description == nullptr) {
    if (source) *source = "built-in table (" + choice.why + ")";
    return builtinSelectionTable();
  }
  if (!choice.description->hasRowsFor(nranks, nnodes)) {
    if (source) {
      *source = "built-in table (" + choice.description->name + " has no rows for " +
                std::to_string(nranks) + " ranks" +
                (nnodes > 1 ? " on " + std::to_string(nnodes) + " nodes" : std::string()) + ")";
    }
    return builtinSelectionTable();
  }
  if (source) {
    *source = choice.description->name + " (" + choice.description->path + "; " + choice.why + ")";
  }
  return choice.description->table;
}

const SelectionTable& selectionTableForThisMachine(int nranks, std::string* source, int nnodes) {
  // Detection, directory scan and logging happen once per process; communicators created later
  // (any thread) reuse the result.
  static const MachineTopologyChoice choice = [] {
    const Topology& machine = localTopology();
    FCCL_INFO(kLogInit, "topology: %s (GPUs from %s, NUMA/NICs from %s)", machine.summary().c_str(),
              machine.gpuSource.c_str(), machine.hostSource.c_str());
    for (const std::string& note : machine.notes) FCCL_INFO(kLogInit, "topology: %s", note.c_str());
    MachineTopologyChoice result =
        chooseMachineTopology(Config::get().topoFile, defaultTopologyDirs(), machine);
    for (const std::string& warning : result.warnings) FCCL_WARN("topology: %s", warning.c_str());
    return result;
  }();
  std::string text;
  const SelectionTable& table = selectionTableFor(choice, nranks, &text, nnodes);
  FCCL_INFO(kLogInit | kLogTune, "selection table for %d ranks on %d node(s): %s", nranks, nnodes, text.c_str());
  if (source) *source = text;
  return table;
}

}  // namespace flashccl
