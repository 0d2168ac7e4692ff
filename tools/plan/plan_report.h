// The body of `flashccl plan`: for each collective and size, what the library's Selector picks
// and why.
#pragma once

#include <ostream>
#include <string>

#include "base/config.h"
#include "plan/plan_options.h"
#include "topo/selection_table.h"

namespace flashccl {

// One decision, as printed.
struct PlanDecision {
  std::string algorithm;  // what runs: an algorithm name, or "nccl"
  std::string why;        // the row that matched ("file.xml:12"), or why NCCL runs
};

// Builds the Selector exactly as communicator set-up does (Selector::build with resolveAlgorithm
// and config.algo = FLASHCCL_ALGO) for rank 0 of `nranks`, and prints one section per collective
// in options.colls. Selector warnings (rows this build cannot use) go to `out` before the sections.
// Returns the number of such warnings: each is a row the library would skip. `config` is the one
// the plan read once (a read per section would repeat its WARNs).
int printPlanSections(const PlanOptions& options, const SelectionTable& table, int nranks,
                      const Config& config, std::ostream& out);

// "8 B", "64 KiB", "1 MiB", "4 GiB"; exact bytes when not a whole number of units.
std::string formatSize(size_t bytes);

}  // namespace flashccl
