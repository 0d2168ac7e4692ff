// `flashccl plan`: picks the topology the way the library does (or as told), then prints the
// Selector's choice per collective and size (plan_report.cc).
#include <algorithm>
#include <iostream>
#include <memory>

#include "base/config.h"
#include "plan/algorithm_check.h"
#include "plan/hierarchy_model.h"
#include "plan/plan.h"
#include "plan/plan_footprint.h"
#include "plan/plan_options.h"
#include "plan/plan_report.h"
#include "subcommands.h"
#include "topo/machine_table.h"
#include "topo/topology_detect.h"

namespace flashccl {

const char* const kNoGpuDefaultTopology = "hopper-2gpu-nvlink";

namespace {

constexpr int kExitOk = 0;
constexpr int kExitProblems = 1;
constexpr int kExitUsage = 2;

}  // namespace

int runPlan(int argc, char** argv, std::ostream& out, std::ostream& err) {
  PlanOptions options;
  std::string error;
  const int status = parsePlanOptions(std::vector<std::string>(argv + 1, argv + argc), &options, out, err);
  if (status >= 0) return status;
  if (!options.checkPath.empty()) {
    return checkAlgorithmFiles(options.checkPath, algorithmFileCheck(), out, err);
  }

  // What the library would read: the environment as it is now.
  const Config config = Config::fromEnvironment();
  const Topology& machine = localTopology();
  const std::vector<std::string> dirs = defaultTopologyDirs();
  const std::string directory = firstExistingDirectory(dirs);

  // Which description to show, and the line that says why.
  MachineTopologyChoice choice;
  std::string banner;
  const char* rankOrigin = "the topology's GPU count";
  if (!options.topo.empty()) {
    auto description = std::make_shared<TopologyDescription>();
    if (!loadTopologyReference(options.topo, directory, description.get(), &error)) {
      err << "flashccl plan: --topo " << error << "\n";
      return kExitProblems;
    }
    choice.description = description;
    choice.why = "--topo " + options.topo;
    banner = (machine.gpus.empty() ? "no GPU detected; showing the plan for "
                                   : "showing the plan for ") +
             description->name + " (--topo)";
  } else if (machine.gpus.empty()) {
    // No GPU: the library would use the built-in table. Show a named topology instead, and say
    // so, so the plan is about a real machine type.
    const std::string reference = config.topoFile.empty() ? kNoGpuDefaultTopology : config.topoFile;
    auto description = std::make_shared<TopologyDescription>();
    if (!loadTopologyReference(reference, directory, description.get(), &error)) {
      err << "flashccl plan: no GPU detected, and "
          << (config.topoFile.empty() ? "the default topology " : "FLASHCCL_TOPO_FILE=") << error
          << (directory.empty() ? " (no topology directory found)" : "")
          << "; name one with --topo FILE\n";
      return kExitProblems;
    }
    choice.description = description;
    choice.why = config.topoFile.empty() ? "default without a GPU" : "FLASHCCL_TOPO_FILE=" + config.topoFile;
    banner = "no GPU detected; showing the plan for " + description->name +
             (config.topoFile.empty()
                  ? " (the default when there is no GPU; choose another with --topo FILE|NAME)"
                  : " (FLASHCCL_TOPO_FILE)");
  } else {
    // Exactly the library's choice for this machine.
    choice = chooseMachineTopology(config.topoFile, dirs, machine);
    banner = "this machine: " + machine.summary();
    rankOrigin = "the GPUs of this machine";
  }

  int nranks = options.nranks;
  if (nranks == 0 && options.gpusPerNode > 0) nranks = options.nnodes * options.gpusPerNode;
  if (options.nranks == 0 && options.gpusPerNode > 0) {
    rankOrigin = "--nodes x --gpus-per-node";
  } else if (nranks == 0) {
    nranks = choice.description ? choice.description->gpuCount() : int(machine.gpus.size());
    if (nranks == 0) {
      err << "flashccl plan: " << (choice.description ? choice.description->name : "this machine")
          << " does not say how many GPUs it has; give --ranks N\n";
      return kExitUsage;
    }
  } else {
    rankOrigin = "--ranks";
  }
  std::string tableSource;
  const SelectionTable& table = selectionTableFor(choice, nranks, &tableSource, options.nnodes);

  out << "flashccl plan: what flashccl would run for each collective and size, and why\n\n";
  out << banner << "\n";
  if (choice.description) {
    out << "topology:      " << choice.description->name;
    if (!choice.description->description.empty()) out << " - " << choice.description->description;
    out << "\n               " << choice.description->path << "\n";
  }
  out << "table:         " << tableSource << "\n";
  out << "machine:       " << machine.summary() << " (GPUs from " << machine.gpuSource << ")\n";
  out << "communicator:  " << nranks << " ranks (" << rankOrigin << "), " << options.nnodes
      << (options.nnodes == 1 ? " node" : " nodes") << "; rank 0's view\n";
  out << "FLASHCCL_ALGO: " << (config.algo.empty() ? "(not set)" : config.algo) << "\n";
  if (options.showMachine) out << "\ndetected machine:\n" << machine.describe();
  int problems = 0;
  if (!choice.warnings.empty()) {
    out << "\ntopology warnings:\n";
    for (const std::string& warning : choice.warnings) out << "  " << warning << "\n";
    problems += int(choice.warnings.size());
  }

  // One report per (datatype, op); AllGather has no op, so it appears once per datatype.
  for (ncclDataType_t dtype : options.dtypes) {
    for (size_t o = 0; o < options.ops.size(); ++o) {
      PlanOptions section = options;
      section.dtype = dtype;
      section.op = options.ops[o];
      if (o > 0) section.colls.erase(std::remove(section.colls.begin(), section.colls.end(), CollKind::kAllGather),
                                     section.colls.end());
      problems += printPlanSections(section, table, nranks, config, out);
    }
  }
  printFootprint(nranks, options.nnodes, config, out);
  printGridBlocks(nranks, options.nnodes, out);
  // The model across nodes once, for the first (datatype, op): its times do not depend on them.
  if (options.gpusPerNode > 0 && options.nnodes > 1) {
    PlanOptions model = options;
    model.dtype = options.dtypes.front();
    model.op = options.ops.front();
    problems += printHierarchyModel(model, table, config, out);
  }
  return problems == 0 ? kExitOk : kExitProblems;
}

int planMain(int argc, char** argv) { return runPlan(argc, argv, std::cout, std::cerr); }

}  // namespace flashccl
