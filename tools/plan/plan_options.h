// Command line of `flashccl plan`.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "base/coll_call.h"

namespace flashccl {

struct PlanOptions {
  std::string topo;           // --topo FILE|NAME; "" = FLASHCCL_TOPO_FILE, else the machine
  int nranks = 0;             // --ranks; 0 = the topology's GPU count
  int nnodes = 1;             // --nodes
  int gpusPerNode = 0;        // --gpus-per-node: with --nodes, the model across nodes (hierarchy_model.h)
  double nicGbps = 400;       // --nic-gbps: each GPU's NIC, for that model
  size_t minBytes = 8;        // -b, as nccl-tests
  size_t maxBytes = size_t(4) << 30;  // -e
  size_t stepFactor = 2;      // -f
  ncclDataType_t dtype = ncclFloat32;  // -d
  ncclRedOp_t op = ncclSum;   // -o
  std::vector<CollKind> colls = {CollKind::kAllReduce, CollKind::kAllGather,
                                 CollKind::kReduceScatter};  // --coll
  bool showMachine = false;   // --machine
  std::string checkDir;       // --check DIR
  bool help = false;          // -h
};

// Parses argv (argv[0] is "plan"). False with *error set on bad usage.
bool parsePlanOptions(int argc, char** argv, PlanOptions* options, std::string* error);
void printPlanUsage(std::ostream& out);

// The sizes to show: minBytes, then times stepFactor, up to maxBytes (nccl-tests -b/-e/-f).
std::vector<size_t> planSizes(const PlanOptions& options);

}  // namespace flashccl
