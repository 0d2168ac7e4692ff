#include "calibrated_tuning.h"

#include "base/data_dirs.h"
#include "topo/machine_match.h"
#include "topo/topology_file.h"
#include "tuning_file.h"

namespace flashccl {

namespace {

bool hasRowsFor(const TuningTable& table, int nRanks, int nNodes) {
  for (const TuningRow& row : table.rows) {
    if (row.forCommunicator(nRanks, nNodes)) return true;
  }
  return false;
}

// "" when `description` (a table of `search.dirs` matching the machine) can be used, else why not.
std::string whyRefused(const TopologyDescription& description, const CalibratedSearch& search,
                       TuningTable* table) {
  if (!description.hasMeasurement) return "records no <measurement> (re-run: flashccl tune --install)";
  const std::string& recorded = description.measurement.nccl;
  if (search.ncclVersion.empty()) {
    return "was measured on NCCL " + recorded + " and the loaded NCCL's version is unknown (" +
           search.ncclVersionWhy + ")";
  }
  if (recorded != search.ncclVersion) {
    const std::string rerun = description.measurement.command.empty() ? "flashccl tune --install"
                                                                      : description.measurement.command;
    return "was measured on NCCL " + recorded + ", this process loaded NCCL " + search.ncclVersion +
           " (re-run: " + rerun + ")";
  }
  bool hasSection = false;
  std::string error;
  if (!parseTuningFile(description.path, table, &hasSection, &error)) return "cannot be read: " + error;
  if (!hasSection) return "has no <tuning> section";
  if (!hasRowsFor(*table, search.nRanks, search.nNodes)) {
    return "has no <tuning> rows for " + std::to_string(search.nRanks) + " ranks on " +
           std::to_string(search.nNodes) + " node(s)";
  }
  return "";
}

}  // namespace

CalibratedTuning findCalibratedTuning(const CalibratedSearch& search, const Topology& machine) {
  CalibratedTuning result;
  for (const std::string& dir : search.dirs) {
    if (!isDirectory(dir)) continue;
    // Files that do not parse are skipped, as the library skips them (it warns about them).
    std::vector<std::string> skipped;
    for (const TopologyDescription& description : loadTopologyDirectory(dir, &skipped)) {
      std::string whyNot;
      if (!descriptionMatches(description, machine, &whyNot)) continue;
      TuningTable table;
      const std::string refused = whyRefused(description, search, &table);
      if (!refused.empty()) {
        result.notes.push_back("calibrated table " + description.path + " " + refused + "; not used");
        continue;
      }
      result.found = true;
      result.table = std::move(table);
      result.path = description.path;
      return result;
    }
  }
  return result;
}

}  // namespace flashccl
