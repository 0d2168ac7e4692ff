// `flashccl plan`'s footprint sections. Memory: what a communicator of the planned size maps on each rank's
// GPU at set-up, what its first large call adds, and how many grown ones FLASHCCL_MEMORY_LIMIT
// allows (docs/design.md, "Memory grows with use"). Computed by the layout code set-up uses.
#pragma once

#include <ostream>

namespace flashccl {

struct Config;

void printFootprint(int nranks, int nnodes, const Config& config, std::ostream& out);

// The grid blocks each built-in one-node algorithm launches at a few sizes: its own launch() run
// under a LaunchCounter (algo/driver_launch.h) on a describe-only communicator, nothing launched.
void printGridBlocks(int nranks, int nnodes, std::ostream& out);

}  // namespace flashccl
