#include "table_choice.h"

#include <cstdlib>

#include "base/data_dirs.h"
#include "forced_choice.h"
#include "topo/machine_match.h"
#include "topo/topology_file.h"
#include "tuning_file.h"

namespace flashccl {

namespace {

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string firstExistingDirectory(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    if (isDirectory(dir)) return resolvedPath(dir);
  }
  return "";
}

// A path, or the name of a shipped topology (files there are named <name>.xml), as
// FLASHCCL_TOPO_FILE takes it. "" when neither exists.
std::string resolveReference(const std::string& reference, const std::string& directory) {
  if (isRegularFile(reference)) return reference;
  if (reference.find('/') == std::string::npos && !directory.empty() &&
      isRegularFile(directory + "/" + reference + ".xml")) {
    return directory + "/" + reference + ".xml";
  }
  return "";
}

// The <tuning> section of `path`; `label` says how the file was chosen, in the log lines.
TableChoice readTable(const std::string& path, const std::string& label, bool* hasSection) {
  TableChoice choice;
  std::string error;
  if (!parseTuningFile(path, &choice.table, hasSection, &error)) {
    choice.table = TuningTable();
    choice.warning = error + " (" + label + "); the table is not used, NCCL keeps its own choices";
    choice.why = label + " (not valid)";
    return choice;
  }
  choice.why = label;
  if (!*hasSection) choice.why += ": " + path + " has no <tuning> section";
  return choice;
}

// Steps 2 and 3: the file a variable names. A file without a <tuning> section is a warning only
// where the variable exists for tuning.
TableChoice fromNamedFile(const char* name, const std::string& reference,
                          const std::string& directory, bool sectionExpected) {
  const std::string setting = std::string(name) + "=" + reference;
  const std::string path = resolveReference(reference, directory);
  if (path.empty()) {
    TableChoice choice;
    choice.warning = setting + ": no such file" +
                     (directory.empty() ? "" : ", and no topology of that name in " + directory) +
                     "; NCCL keeps its own choices";
    choice.why = setting + " (missing)";
    return choice;
  }
  bool hasSection = false;
  TableChoice choice = readTable(path, setting, &hasSection);
  if (choice.warning.empty() && !hasSection && sectionExpected) {
    choice.warning = choice.why + "; NCCL keeps its own choices";
  }
  return choice;
}

// Steps 4 and 5 need the machine; NVML is asked once, and only when one of them can use it.
class ProbedMachine {
 public:
  explicit ProbedMachine(const MachineProbe& probe) : probe_(probe) {}
  const Topology& get(std::string* why) {
    if (!probed_) machine_ = probe_(&why_), probed_ = true;
    *why = why_;
    return machine_;
  }

 private:
  const MachineProbe& probe_;
  bool probed_ = false;
  Topology machine_;
  std::string why_;
};

// Step 4: true with *choice when an installed calibrated table is used; refusals go to *notes.
bool fromCalibratedTable(const CalibratedSearch& search, ProbedMachine& probed, TableChoice* choice,
                         std::vector<std::string>* notes) {
  std::string probeWhy;
  const Topology& machine = probed.get(&probeWhy);
  if (machine.gpus.empty()) return false;  // step 5 says why
  CalibratedTuning found = findCalibratedTuning(search, machine);
  notes->insert(notes->end(), found.notes.begin(), found.notes.end());
  if (!found.found) return false;
  choice->table = std::move(found.table);
  choice->why = "calibrated table " + found.path + " (measured on this machine with NCCL " +
                search.ncclVersion + ")";
  return true;
}

// Step 5.
TableChoice fromMatchingTopology(const std::vector<std::string>& topologyDirs, ProbedMachine& probed) {
  const std::string directory = firstExistingDirectory(topologyDirs);
  if (directory.empty()) {
    std::string looked;
    for (const std::string& dir : topologyDirs) looked += (looked.empty() ? "" : ", ") + dir;
    return {TuningTable(), "no topology directory (looked in " + looked + ")", "", {}};
  }
  std::string probeWhy;
  const Topology& machine = probed.get(&probeWhy);
  if (machine.gpus.empty()) {
    return {TuningTable(),
            "cannot tell which topology file fits: " +
                (probeWhy.empty() ? std::string("NVML lists no GPU") : probeWhy) +
                " (FLASHCCL_TUNER_FILE names one)",
            "", {}};
  }
  // Files that do not parse are the library's to report; they describe no machine here either.
  std::vector<std::string> skipped;
  const std::vector<TopologyDescription> descriptions = loadTopologyDirectory(directory, &skipped);
  std::vector<std::string> others;
  const TopologyDescription* found = findMatchingDescription(descriptions, machine, &others);
  if (found == nullptr) {
    return {TuningTable(), "no topology in " + directory + " matches " + machine.summary(), "", {}};
  }
  std::string label = found->name + " matches " + machine.summary();
  if (!others.empty()) label += " (first in file-name order; others match too)";
  bool hasSection = false;
  return readTable(found->path, label, &hasSection);
}

}  // namespace

TunerEnvironment TunerEnvironment::fromProcess() {
  TunerEnvironment environment;
  environment.force = variable(kForceVariable);
  environment.tunerFile = variable("FLASHCCL_TUNER_FILE");
  environment.topoFile = variable("FLASHCCL_TOPO_FILE");
  environment.tableDir = variable("FLASHCCL_TABLE_DIR");
  return environment;
}

TableChoice chooseTuningTable(const TunerEnvironment& environment,
                              const std::vector<std::string>& topologyDirs,
                              const MachineProbe& probe, const CalibratedSearch& calibrated) {
  if (!environment.force.empty()) {
    TableChoice choice;
    std::string error;
    if (parseForcedChoice(environment.force, &choice.table, &error)) {
      choice.why = std::string(kForceVariable) + "=" + environment.force;
    } else {
      choice.table = TuningTable();
      choice.warning = error + "; nothing is forced, NCCL keeps its own choices";
      choice.why = std::string(kForceVariable) + " (not valid)";
    }
    return choice;
  }
  const std::string directory = firstExistingDirectory(topologyDirs);
  if (!environment.tunerFile.empty()) {
    return fromNamedFile("FLASHCCL_TUNER_FILE", environment.tunerFile, directory, true);
  }
  if (!environment.topoFile.empty()) {
    return fromNamedFile("FLASHCCL_TOPO_FILE", environment.topoFile, directory, false);
  }
  ProbedMachine probed(probe);
  std::vector<std::string> notes;
  TableChoice choice;
  if (calibrated.dirs.empty() || !fromCalibratedTable(calibrated, probed, &choice, &notes)) {
    choice = fromMatchingTopology(topologyDirs, probed);
  }
  choice.notes = std::move(notes);
  return choice;
}

}  // namespace flashccl
