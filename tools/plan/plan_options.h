// Command line of `flashccl plan`: the shared options of docs/cli.md (-b -e -f, --coll, -d, -o) plus
// what a plan needs (--topo, --ranks, --nodes, --show-machine, --check).
#pragma once

#include <nccl.h>

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "base/coll_call.h"
#include "cli_options.h"

namespace flashccl {

struct PlanOptions {
  std::string topo;           // --topo FILE|NAME; "" = FLASHCCL_TOPO_FILE, else the machine
  int nranks = 0;             // --ranks; 0 = the topology's GPU count
  int nnodes = 1;             // --nodes
  int gpusPerNode = 0;        // --gpus-per-node: with --nodes, the model across nodes (hierarchy_model.h)
  double nicGbps = 400;       // --nic-gbps: each GPU's NIC, for that model
  size_t minBytes = cli::kDefaultMinBytes;      // -b
  size_t maxBytes = cli::kDefaultMaxBytes;      // -e
  size_t stepFactor = cli::kDefaultStepFactor;  // -f
  std::vector<ncclDataType_t> dtypes = {ncclFloat32};  // -d
  std::vector<ncclRedOp_t> ops = {ncclSum};            // -o
  std::vector<CollKind> colls = {CollKind::kAllReduce, CollKind::kAllGather,
                                 CollKind::kReduceScatter};  // --coll
  bool showMachine = false;   // --show-machine
  std::string checkPath;      // --check FILE|DIR

  // The (datatype, op) one section of the report is about; runPlan sets them from the lists.
  ncclDataType_t dtype = ncclFloat32;
  ncclRedOp_t op = ncclSum;
};

// Parses args (what followed `flashccl plan`). Returns -1 to go on, 0 after --help (on `out`), 2
// after the one-line usage error (on `err`).
int parsePlanOptions(const std::vector<std::string>& args, PlanOptions* options, std::ostream& out,
                     std::ostream& err);

// The sizes to show: minBytes, then times stepFactor, up to maxBytes (nccl-tests -b/-e/-f).
std::vector<size_t> planSizes(const PlanOptions& options);

}  // namespace flashccl
