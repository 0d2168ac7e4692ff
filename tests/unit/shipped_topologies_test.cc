// Every shipped topologies/*.xml parses, every row names something the library can run (a
// built-in, an XML algorithm file or nccl), and every band table covers all sizes.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <tuple>

#include "topo/topology_file.h"

namespace flashccl {
namespace {

const char* const kTopologyDir = FLASHCCL_SOURCE_DIR "/topologies";

// The built-in algorithms the tables may name (docs/design.md, "The path of one call"; src/algo/, one
// file each): inside one node, and across nodes (docs/multinode.md).
const std::set<std::string> kBuiltinNames = {"allreduce_oneshot", "allreduce_twoshot",
                                             "allgather_direct", "reducescatter_direct"};
const std::set<std::string> kAcrossNodesNames = {"allreduce_hier", "allreduce_hier_oneshot", "allgather_hier",
                                                 "reducescatter_hier"};

std::vector<std::string> shippedFiles() {
  std::vector<std::string> files;
  DIR* dir = opendir(kTopologyDir);
  if (dir == nullptr) return files;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0) files.push_back(name);
  }
  closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ShippedTopologies, TheMachineTypesWeShipAreThere) {
  const std::vector<std::string> files = shippedFiles();
  for (const char* expected : {"a100-8gpu-nvswitch.xml", "hopper-2gpu-nvlink.xml",
                               "hopper-4gpu-nvlink.xml", "hopper-8gpu-nvswitch.xml",
                               "pcie-8gpu.xml"}) {
    EXPECT_NE(std::find(files.begin(), files.end(), expected), files.end()) << expected;
  }
}

TEST(ShippedTopologies, EveryFileParsesAndNamesItselfAfterItsFile) {
  const std::vector<std::string> files = shippedFiles();
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    TopologyDescription d;
    std::string error;
    ASSERT_TRUE(parseTopologyFile(std::string(kTopologyDir) + "/" + file, &d, &error)) << error;
    EXPECT_EQ(d.name + ".xml", file);
    EXPECT_FALSE(d.description.empty()) << file;
    EXPECT_FALSE(d.matches.empty()) << file << ": a shipped topology must say which machine it is";
    EXPECT_GT(d.gpuCount(), 0) << file;
    EXPECT_FALSE(d.table.rows.empty()) << file;
  }
}

TEST(ShippedTopologies, EveryRowNamesABuiltinAnXmlFileOrNccl) {
  // XML algorithm files are named by what they are (docs/algorithms.md), e.g.
  // allreduce_1step--gpus_8-instances_4-proto_LL.xml; a plain file name, found in the algorithm
  // directory.
  const std::regex xmlFile("[A-Za-z0-9_.+-]+\\.xml");
  for (const std::string& file : shippedFiles()) {
    TopologyDescription d;
    std::string error;
    ASSERT_TRUE(parseTopologyFile(std::string(kTopologyDir) + "/" + file, &d, &error)) << error;
    for (const SelectionRow& row : d.table.rows) {
      const bool acrossNodes = kAcrossNodesNames.count(row.algorithm) != 0;
      const bool known = row.algorithm == "nccl" || kBuiltinNames.count(row.algorithm) || acrossNodes ||
                         std::regex_match(row.algorithm, xmlFile);
      EXPECT_TRUE(known) << row.source << ": " << row.algorithm;
      // A built-in implements one collective; its name says which.
      if (kBuiltinNames.count(row.algorithm) || acrossNodes) {
        EXPECT_EQ(row.algorithm.rfind(collKindName(row.kind), 0), 0u)
            << row.source << ": " << row.algorithm << " on a " << collKindName(row.kind) << " row";
      }
      // The one-node kernels (and XML programs) run inside one node, the hierarchical ones only
      // across nodes: rows that pick one must say how many nodes.
      if (row.algorithm != "nccl" && !acrossNodes) EXPECT_EQ(row.nnodes, 1) << row.source;
      if (acrossNodes) EXPECT_GT(row.nnodes, 1) << row.source;
    }
  }
}

// No shipped file has measured anything across nodes yet: a row across nodes is either in a table
// measured nowhere or in a <group measured="no">, so none is armed as if measured.
TEST(ShippedTopologies, RowsAcrossNodesAreNotPassedOffAsMeasured) {
  int acrossNodes = 0;
  for (const std::string& file : shippedFiles()) {
    TopologyDescription d;
    std::string error;
    ASSERT_TRUE(parseTopologyFile(std::string(kTopologyDir) + "/" + file, &d, &error)) << error;
    for (const SelectionRow& row : d.table.rows) {
      if (row.nnodes == 1) continue;
      ++acrossNodes;
      EXPECT_TRUE(d.table.unmeasured || row.unmeasured) << row.source << ": " << row.algorithm;
    }
  }
  EXPECT_GT(acrossNodes, 0);
}

// For each (collective, rank count, node count) a table mentions, every size from 0 up maps to some
// row, so no size falls through to "no row" by accident, and the rows are in increasing size order.
TEST(ShippedTopologies, BandsCoverEverySizeInOrder) {
  for (const std::string& file : shippedFiles()) {
    TopologyDescription d;
    std::string error;
    ASSERT_TRUE(parseTopologyFile(std::string(kTopologyDir) + "/" + file, &d, &error)) << error;
    std::set<std::tuple<int, int, int>> groups;
    for (const SelectionRow& row : d.table.rows) groups.insert({int(row.kind), row.nranks, row.nnodes});
    for (const auto& [kindNumber, groupRanks, groupNodes] : groups) {
      const CollKind kind = CollKind(kindNumber);
      const int nranks = groupRanks == 0 ? 8 : groupRanks;
      const int nnodes = groupNodes == 0 ? 1 : groupNodes;
      size_t previousMax = 0;
      bool sawUnbounded = false;
      for (const SelectionRow& row : d.table.rows) {
        if (int(row.kind) != kindNumber || row.nranks != groupRanks || row.nnodes != groupNodes) continue;
        EXPECT_FALSE(sawUnbounded) << row.source << ": after an unbounded row, never reached";
        EXPECT_LE(row.minBytes, previousMax) << row.source << ": gap below this row";
        if (row.maxBytes == 0) sawUnbounded = true;
        else previousMax = std::max(previousMax, row.maxBytes);
      }
      EXPECT_TRUE(sawUnbounded) << file << ": " << collKindName(kind) << " at " << nranks
                                << " ranks has no row for the largest sizes";
      for (size_t bytes : {size_t(0), size_t(8), size_t(1) << 20, size_t(1) << 32}) {
        EXPECT_NE(d.table.firstMatch(kind, nranks, nnodes, bytes), nullptr)
            << file << ": " << collKindName(kind) << " " << bytes << " B";
      }
    }
  }
}

}  // namespace
}  // namespace flashccl
