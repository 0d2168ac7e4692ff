// Choosing the selection table for a machine: FLASHCCL_TOPO_FILE, the matching topology file,
// or the built-in table, and the reasons given for each.
#include <gtest/gtest.h>

#include "topo/builtin_table.h"
#include "support/machines.h"
#include "support/temp_dir.h"
#include "topo/machine_table.h"

namespace flashccl {
namespace {

using testing::hgxH200x8;
using testing::h200PairNv18;
using testing::TempDir;
using testing::uniformMachine;
using testing::nvswitchLink;

const char* const kPairTopology = R"(<topology name="pair" description="two">
  <match gpu="NVIDIA H200" gpus="2"/>
  <selection>
    <row coll="allreduce" ranks="2" algorithm="nccl"/>
  </selection>
</topology>
)";

const char* const kEightTopology = R"(<topology name="eight">
  <match gpus="8"/>
  <selection>
    <row coll="allreduce" ranks="8" algorithm="nccl"/>
    <row coll="allreduce" ranks="4" algorithm="nccl"/>
  </selection>
</topology>
)";

TEST(MachineTable, MatchingFileFromTheFirstExistingDirectory) {
  TempDir dir;
  dir.write("topologies/pair.xml", kPairTopology);
  dir.write("topologies/eight.xml", kEightTopology);
  const std::vector<std::string> dirs = {dir.path() + "/missing", dir.path() + "/topologies"};
  EXPECT_EQ(firstExistingDirectory(dirs), dir.path() + "/topologies");

  MachineTopologyChoice choice = chooseMachineTopology("", dirs, hgxH200x8());
  ASSERT_NE(choice.description, nullptr);
  EXPECT_EQ(choice.description->name, "eight");
  EXPECT_EQ(choice.why, "matches 8 x NVIDIA H200, nvswitch (18 NVLinks per pair)");
  EXPECT_TRUE(choice.warnings.empty());

  std::string source;
  const SelectionTable& table = selectionTableFor(choice, 8, &source);
  EXPECT_EQ(&table, &choice.description->table);
  EXPECT_EQ(source, "eight (" + dir.path() + "/topologies/eight.xml; matches 8 x NVIDIA H200, "
                    "nvswitch (18 NVLinks per pair))");

  // A rank count the file has no rows for gets the built-in table, and says why.
  const SelectionTable& three = selectionTableFor(choice, 3, &source);
  EXPECT_EQ(&three, &builtinSelectionTable());
  EXPECT_EQ(source, "built-in table (eight has no rows for 3 ranks)");
}

TEST(MachineTable, NoMatchNoGpuNoDirectory) {
  TempDir dir;
  dir.write("pair.xml", kPairTopology);
  std::string source;

  MachineTopologyChoice unknown =
      chooseMachineTopology("", {dir.path()}, uniformMachine("NVIDIA H200", 3, nvswitchLink(18)));
  EXPECT_EQ(unknown.description, nullptr);
  EXPECT_EQ(&selectionTableFor(unknown, 3, &source), &builtinSelectionTable());
  EXPECT_EQ(source, "built-in table (no topology in " + dir.path() +
                        " matches 3 x NVIDIA H200, nvswitch (18 NVLinks per pair))");

  MachineTopologyChoice noGpu = chooseMachineTopology("", {dir.path()}, Topology());
  EXPECT_EQ(noGpu.description, nullptr);
  selectionTableFor(noGpu, 2, &source);
  EXPECT_EQ(source, "built-in table (no GPU detected)");

  MachineTopologyChoice noDir = chooseMachineTopology("", {"/nonexistent/a", "/nonexistent/b"},
                                                      h200PairNv18());
  EXPECT_EQ(noDir.description, nullptr);
  selectionTableFor(noDir, 2, &source);
  EXPECT_EQ(source, "built-in table (no topology directory (looked in /nonexistent/a, /nonexistent/b))");
}

TEST(MachineTable, TopoFileOverridesDetection) {
  TempDir dir;
  dir.write("topologies/pair.xml", kPairTopology);
  const std::string eight = dir.write("elsewhere/eight.xml", kEightTopology);
  const std::vector<std::string> dirs = {dir.path() + "/topologies"};

  // A path: used even though the machine is a pair, with a warning that it does not match.
  MachineTopologyChoice choice = chooseMachineTopology(eight, dirs, h200PairNv18());
  ASSERT_NE(choice.description, nullptr);
  EXPECT_EQ(choice.description->name, "eight");
  EXPECT_EQ(choice.why, "FLASHCCL_TOPO_FILE=" + eight);
  ASSERT_EQ(choice.warnings.size(), 1u);
  EXPECT_EQ(choice.warnings[0], "FLASHCCL_TOPO_FILE=" + eight +
                                    ": 'eight' does not describe this machine (GPU count 2 not "
                                    "listed); using it as asked");

  // A name from the topology directory.
  choice = chooseMachineTopology("pair", dirs, hgxH200x8());
  ASSERT_NE(choice.description, nullptr);
  EXPECT_EQ(choice.description->name, "pair");

  // Without a GPU there is nothing to compare with, so no warning.
  choice = chooseMachineTopology(eight, dirs, Topology());
  ASSERT_NE(choice.description, nullptr);
  EXPECT_TRUE(choice.warnings.empty());
}

TEST(MachineTable, UnusableTopoFileFallsBackToDetection) {
  TempDir dir;
  dir.write("topologies/pair.xml", kPairTopology);
  const std::string broken = dir.write("broken.xml", "<topology name=\"b\">\n<selection>\n");
  const std::vector<std::string> dirs = {dir.path() + "/topologies"};

  MachineTopologyChoice choice = chooseMachineTopology(broken, dirs, h200PairNv18());
  ASSERT_NE(choice.description, nullptr);
  EXPECT_EQ(choice.description->name, "pair");
  ASSERT_EQ(choice.warnings.size(), 1u);
  EXPECT_EQ(choice.warnings[0].rfind("FLASHCCL_TOPO_FILE=" + broken + ": " + broken + ":", 0), 0u)
      << choice.warnings[0];
  EXPECT_NE(choice.warnings[0].find("XML error"), std::string::npos) << choice.warnings[0];
  EXPECT_NE(choice.warnings[0].find("; ignored"), std::string::npos) << choice.warnings[0];

  choice = chooseMachineTopology("no-such-topology", dirs, h200PairNv18());
  EXPECT_EQ(choice.description->name, "pair");
  ASSERT_EQ(choice.warnings.size(), 1u);
  EXPECT_EQ(choice.warnings[0], "FLASHCCL_TOPO_FILE=no-such-topology: no-such-topology: no such "
                                "file, and no topology of that name in " +
                                    dir.path() + "/topologies; ignored");
}

TEST(MachineTable, BadFilesInTheDirectoryAreWarningsAndOverlapsAreReported) {
  TempDir dir;
  dir.write("a-bad.xml", "<topology name=\"bad\">\n<selection>\n<row/>\n</selection>\n</topology>\n");
  dir.write("b-pair.xml", kPairTopology);
  dir.write("c-pair-too.xml", std::string(kPairTopology).replace(16, 4, "pair2"));
  MachineTopologyChoice choice = chooseMachineTopology("", {dir.path()}, h200PairNv18());
  ASSERT_NE(choice.description, nullptr);
  EXPECT_EQ(choice.description->name, "pair");
  ASSERT_EQ(choice.warnings.size(), 2u);
  EXPECT_NE(choice.warnings[0].find("a-bad.xml:3: row has no coll"), std::string::npos);
  EXPECT_EQ(choice.warnings[1], "topologies pair2 also match this machine; using pair (first in "
                                "file-name order)");
}

TEST(MachineTable, DefaultDirectoriesEndWithTheSourceTree) {
  const std::vector<std::string> dirs = defaultTopologyDirs();
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_NE(dirs[0].find("/../share/flashccl/topologies"), std::string::npos) << dirs[0];
  EXPECT_EQ(dirs.back(), FLASHCCL_SOURCE_DIR "/topologies");
}

TEST(MachineTable, ThisMachineIsCachedAndConsistent) {
  std::string first, second;
  const SelectionTable& a = selectionTableForThisMachine(2, &first);
  const SelectionTable& b = selectionTableForThisMachine(2, &second);
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(first, second);
  EXPECT_FALSE(first.empty());
}

}  // namespace
}  // namespace flashccl
