// `flashccl plan` with explicit output streams, so tests can read what it prints.
#pragma once

#include <ostream>

namespace flashccl {

// The topology `flashccl plan` shows on a machine without a GPU when neither --topo nor
// FLASHCCL_TOPO_FILE names one: the project's 2 x H200 test machine.
extern const char* const kNoGpuDefaultTopology;

// planMain (tools/subcommands.h) is runPlan(argc, argv, std::cout, std::cerr).
int runPlan(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace flashccl
