// Topology files (topologies/*.xml, FLASHCCL_TOPO_FILE, `--topo`): parsed as the loader does, then
// matched against hand-built machines and asked for rows at sizes around every boundary the
// file names, as the selector does at each call.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/machines.h"
#include "topo/machine_match.h"
#include "topo/topology_file.h"

using namespace flashccl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<TopologyDescription> descriptions(1);
  std::string error;
  if (!parseTopologyText(text, "fuzz.xml", &descriptions[0], &error)) return 0;
  const TopologyDescription& description = descriptions[0];
  (void)description.gpuCount();
  std::vector<size_t> sizes = {0, 1, 4096, size_t(1) << 20, size_t(1) << 30, SIZE_MAX};
  for (const SelectionRow& row : description.table.rows) {
    for (size_t bound : {static_cast<size_t>(row.minBytes), static_cast<size_t>(row.maxBytes)}) {
      sizes.push_back(bound);
      sizes.push_back(bound + 1);
      if (bound > 0) sizes.push_back(bound - 1);
    }
    if (sizes.size() > 64) break;
  }
  for (int k = 0; k < flashccl::kNumCollKinds; ++k) {
    for (int ranks : {1, 2, 8, 16}) {
      for (int nodes : {1, 2}) {
        (void)description.hasRowsFor(ranks, nodes);
        for (size_t bytes : sizes) (void)description.table.firstMatch(static_cast<CollKind>(k), ranks, nodes, bytes);
      }
    }
  }
  for (const Topology& machine : {testing::hgxH200x8(), testing::h200PairNv18(), testing::hgxA100x8(),
                                  testing::l40sPciex8(), Topology()}) {
    std::vector<std::string> others;
    std::string whyNot;
    (void)descriptionMatches(description, machine, &whyNot);
    (void)findMatchingDescription(descriptions, machine, &others);
  }
  return 0;
}
