// `flashccl plan`'s memory section: what a communicator of the planned size maps on each rank's
// GPU at set-up, what its first large call adds, and how many grown ones FLASHCCL_MEMORY_LIMIT
// allows (docs/design.md, "Memory grows with use"). Computed by the layout code set-up uses.
#pragma once

#include <ostream>

namespace flashccl {

struct Config;

void printFootprint(int nranks, int nnodes, const Config& config, std::ostream& out);

}  // namespace flashccl
