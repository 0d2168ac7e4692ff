#include "topo/machine_table.h"

#include "base/config.h"
#include "base/data_dirs.h"
#include "base/kernel_generation.h"
#include "base/log.h"
#include "base/real_nccl.h"
#include "topo/builtin_table.h"
#include "topo/machine_match.h"
#include "topo/topology_detect.h"

namespace flashccl {

std::vector<std::string> defaultTopologyDirs() { return dataDirectories("topologies"); }

namespace {

// How to measure a refused table again: the command that made it, else the plain one.
std::string rerunCommand(const TableMeasurement& m) {
  return m.command.empty() ? "flashccl tune --install" : m.command;
}

// Step 2: every table in `dirs` that describes `machine` and whose measurement holds; the others
// get a note each (the next table in the order is used instead).
void addCalibratedTables(const std::vector<std::string>& dirs, const Topology& machine,
                         const TableMeasurement& now, MachineTopologyChoice* choice) {
  for (const std::string& dir : dirs) {
    if (!isDirectory(dir)) continue;
    for (TopologyDescription& description : loadTopologyDirectory(dir, &choice->warnings)) {
      std::string whyNot;
      if (!descriptionMatches(description, machine, &whyNot)) continue;
      const std::string which = "calibrated table " + description.name + " (" + description.path + ")";
      if (!description.hasMeasurement) {
        choice->notes.push_back(which + " records no <measurement>; not used (re-run: flashccl tune --install)");
        continue;
      }
      const std::string mismatch = measurementMismatch(description.measurement, now);
      if (!mismatch.empty()) {
        choice->notes.push_back(which + " is refused, " + mismatch + "; the next table is used (re-run: " +
                                rerunCommand(description.measurement) + ")");
        continue;
      }
      choice->calibrated.push_back(std::make_shared<TopologyDescription>(std::move(description)));
    }
  }
}

// A shipped (or named) table measured on older kernels than these says nothing about them.
void countOlderKernelsUnmeasured(TopologyDescription* description, std::vector<std::string>* notes) {
  SelectionTable& table = description->table;
  if (table.unmeasured || description->measurement.kernels >= kKernelGeneration) return;
  notes->push_back(description->name + " was measured on kernel generation " +
                   std::to_string(description->measurement.kernels) + " (" + table.measuredBy +
                   "), this library runs generation " + std::to_string(kKernelGeneration) +
                   ": it counts as unmeasured (flashccl tune --install measures this machine)");
  table.unmeasured = true;
}

}  // namespace

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
                                            const Topology& machine,
                                            const std::vector<std::string>& calibratedDirs,
                                            const TableMeasurement* now) {
  MachineTopologyChoice choice;
  choice.directory = firstExistingDirectory(searchDirs);
  if (!topoFile.empty()) {
    auto description = std::make_shared<TopologyDescription>();
    std::string error;
    if (loadTopologyReference(topoFile, choice.directory, description.get(), &error)) {
      countOlderKernelsUnmeasured(description.get(), &choice.notes);
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
  if (now != nullptr && !machine.gpus.empty()) addCalibratedTables(calibratedDirs, machine, *now, &choice);

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
  auto shipped = std::make_shared<TopologyDescription>(*found);
  countOlderKernelsUnmeasured(shipped.get(), &choice.notes);
  choice.description = shipped;
  choice.why = "matches " + machine.summary();
  return choice;
}

const SelectionTable& selectionTableFor(const MachineTopologyChoice& choice, int nranks,
                                        std::string* source, int nnodes) {
  for (const auto& calibrated : choice.calibrated) {
    if (!calibrated->hasRowsFor(nranks, nnodes)) continue;
    if (source) {
      *source = calibrated->name + " (" + calibrated->path + "; calibrated on this machine " +
                calibrated->measurement.date + ")";
    }
    return calibrated->table;
  }
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
    const RealNccl* nccl = realNccl();
    const TableMeasurement now = measurementOf(machine, nccl ? nccl->versionString() : "");
    MachineTopologyChoice result = chooseMachineTopology(Config::get().topoFile, defaultTopologyDirs(), machine,
                                                         calibratedTableDirs(Config::get().tableDir), &now);
    for (const std::string& warning : result.warnings) FCCL_WARN("topology: %s", warning.c_str());
    for (const std::string& note : result.notes) FCCL_INFO(kLogInit | kLogTune, "selection table: %s", note.c_str());
    return result;
  }();
  std::string text;
  const SelectionTable& table = selectionTableFor(choice, nranks, &text, nnodes);
  FCCL_INFO(kLogInit | kLogTune, "selection table for %d ranks on %d node(s): %s", nranks, nnodes, text.c_str());
  if (source) *source = text;
  return table;
}

}  // namespace flashccl
