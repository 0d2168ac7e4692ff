// Which table a communicator gets: the variables in their order, named files, and the topology
// file that matches the machine.
#include <gtest/gtest.h>

#include "support/machines.h"
#include "support/temp_dir.h"
#include "table_choice.h"

namespace flashccl {
namespace {

using namespace nccl_abi;
using testing::TempDir;

const char* const kPcieBox = R"(<topology name="pcie-box">
  <match gpus="8" interconnect="pcie"/>
  <selection><row coll="allreduce" algorithm="nccl"/></selection>
  <tuning ranks="8">
    <row coll="allreduce" maxBytes="64K" algorithm="tree" protocol="ll" channels="2"/>
  </tuning>
</topology>
)";

const char* const kHgxBox = R"(<topology name="hgx-box">
  <match gpu="NVIDIA H200" gpus="8" interconnect="nvswitch"/>
  <selection><row coll="allreduce" algorithm="nccl"/></selection>
</topology>
)";

const char* const kTuningOnly = R"(<tuning>
  <row coll="broadcast" algorithm="ring" protocol="simple"/>
  <row coll="reduce" algorithm="ring" protocol="ll"/>
</tuning>
)";

class TableChoiceTest : public ::testing::Test {
 protected:
  TableChoiceTest() {
    dir_.write("topologies/hgx-box.xml", kHgxBox);
    dir_.write("topologies/pcie-box.xml", kPcieBox);
    dir_.write("topologies/broken.xml", "<topology name=\"broken\">");  // skipped, as by the library
  }

  TableChoice choose(const TunerEnvironment& environment, const Topology& machine) {
    probed_ = false;
    return chooseTuningTable(environment, {dir_.path() + "/missing", dir_.path() + "/topologies"},
                             [&](std::string*) {
                               probed_ = true;
                               return machine;
                             });
  }

  TempDir dir_;
  bool probed_ = false;
};

TEST_F(TableChoiceTest, TheMatchingTopologyFileGivesItsTuningSection) {
  const TableChoice choice = choose({}, testing::l40sPciex8());
  EXPECT_TRUE(probed_);
  EXPECT_EQ(choice.warning, "");
  ASSERT_EQ(choice.table.rows.size(), 1u);
  EXPECT_EQ(choice.table.rows[0].source, "pcie-box.xml:5");
  EXPECT_EQ(choice.why, "pcie-box matches 8 x NVIDIA L40S, pcie");
}

TEST_F(TableChoiceTest, AMatchingFileWithoutTuningMeansNoTable) {
  const TableChoice choice = choose({}, testing::hgxH200x8());
  EXPECT_EQ(choice.warning, "");
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.why, "hgx-box matches 8 x NVIDIA H200, nvswitch (18 NVLinks per pair): " +
                            dir_.path() + "/topologies/hgx-box.xml has no <tuning> section");
}

TEST_F(TableChoiceTest, NoMatchingFileOrNoGpuMeansNoTable) {
  TableChoice choice = choose({}, testing::h200PairNv18());
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.warning, "");
  EXPECT_EQ(choice.why, "no topology in " + dir_.path() +
                            "/topologies matches 2 x NVIDIA H200, nvlink-direct (18 NVLinks per pair)");

  choice = chooseTuningTable({}, {dir_.path() + "/topologies"}, [](std::string* why) {
    *why = "NVML: cannot load libnvidia-ml.so.1: not found";
    return Topology();
  });
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.warning, "");
  EXPECT_EQ(choice.why, "cannot tell which topology file fits: NVML: cannot load "
                        "libnvidia-ml.so.1: not found (FLASHCCL_TUNER_FILE names one)");
}

TEST_F(TableChoiceTest, NoTopologyDirectorySaysWhereItLooked) {
  const TableChoice choice = chooseTuningTable({}, {dir_.path() + "/a", dir_.path() + "/b"},
                                               [](std::string*) { return testing::l40sPciex8(); });
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.why, "no topology directory (looked in " + dir_.path() + "/a, " + dir_.path() + "/b)");
}

TEST_F(TableChoiceTest, ABrokenTuningSectionInTheMatchingFileIsOneWarning) {
  dir_.write("topologies/pcie-box.xml", R"(<topology name="pcie-box">
  <match gpus="8" interconnect="pcie"/>
  <selection><row coll="allreduce" algorithm="nccl"/></selection>
  <tuning><row coll="allreduce" algorithm="ring" protocol="LL129"/></tuning>
</topology>
)");
  const TableChoice choice = choose({}, testing::l40sPciex8());
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.warning, dir_.path() + "/topologies/pcie-box.xml:4: unknown protocol 'LL129' "
                            "(expected ll, ll128 or simple) (pcie-box matches 8 x NVIDIA L40S, "
                            "pcie); the table is not used, NCCL keeps its own choices");
}

TEST_F(TableChoiceTest, TunerFileComesBeforeTheMachineAndMayHoldOnlyATuningSection) {
  TunerEnvironment environment;
  environment.tunerFile = dir_.write("mine.xml", kTuningOnly);
  const TableChoice choice = choose(environment, testing::l40sPciex8());
  EXPECT_FALSE(probed_);  // an explicit file needs no detection
  EXPECT_EQ(choice.warning, "");
  ASSERT_EQ(choice.table.rows.size(), 2u);
  EXPECT_EQ(choice.table.rows[0].coll, kFuncBroadcast);
  EXPECT_EQ(choice.why, "FLASHCCL_TUNER_FILE=" + environment.tunerFile);
}

TEST_F(TableChoiceTest, TunerFileMayNameAShippedTopology) {
  TunerEnvironment environment;
  environment.tunerFile = "pcie-box";
  const TableChoice choice = choose(environment, testing::hgxH200x8());
  EXPECT_EQ(choice.warning, "");
  EXPECT_EQ(choice.table.rows.size(), 1u);
}

TEST_F(TableChoiceTest, ATunerFileThatIsMissingBrokenOrWithoutTuningIsAWarningAndNoTable) {
  TunerEnvironment environment;
  environment.tunerFile = dir_.path() + "/absent.xml";
  TableChoice choice = choose(environment, testing::l40sPciex8());
  EXPECT_FALSE(probed_);  // no falling through to the machine's file
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.warning, "FLASHCCL_TUNER_FILE=" + environment.tunerFile + ": no such file, and no "
                            "topology of that name in " + dir_.path() + "/topologies; NCCL keeps its "
                            "own choices");

  environment.tunerFile = dir_.write("bad.xml", "<tuning>\n  <row coll=\"allreduce\" algorithm=\"ring\" protocol=\"ll\" channels=\"x\"/>\n</tuning>\n");
  choice = choose(environment, testing::l40sPciex8());
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.warning, environment.tunerFile + ":2: channels=\"x\" is not a channel count (0 or "
                            "absent: NCCL's own) (FLASHCCL_TUNER_FILE=" + environment.tunerFile +
                            "); the table is not used, NCCL keeps its own choices");

  environment.tunerFile = dir_.path() + "/topologies/hgx-box.xml";
  choice = choose(environment, testing::l40sPciex8());
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.warning, "FLASHCCL_TUNER_FILE=" + environment.tunerFile + ": " +
                            environment.tunerFile + " has no <tuning> section; NCCL keeps its own choices");
}

TEST_F(TableChoiceTest, TopoFileIsFollowedSoFlashcclAndNcclReadOneFile) {
  TunerEnvironment environment;
  environment.topoFile = "pcie-box";
  TableChoice choice = choose(environment, testing::hgxH200x8());
  EXPECT_FALSE(probed_);
  EXPECT_EQ(choice.warning, "");
  EXPECT_EQ(choice.table.rows.size(), 1u);

  // A topology file without tuning is normal for FLASHCCL_TOPO_FILE: no warning.
  environment.topoFile = dir_.path() + "/topologies/hgx-box.xml";
  choice = choose(environment, testing::l40sPciex8());
  EXPECT_EQ(choice.warning, "");
  EXPECT_TRUE(choice.table.rows.empty());

  // FLASHCCL_TUNER_FILE wins.
  environment.tunerFile = dir_.write("mine.xml", kTuningOnly);
  EXPECT_EQ(choose(environment, testing::l40sPciex8()).table.rows.size(), 2u);
}

TEST_F(TableChoiceTest, ForceWinsOverEveryFileAndABadForceIsAWarningAndNoTable) {
  TunerEnvironment environment;
  environment.force = "allreduce:ring:simple:4";
  environment.tunerFile = dir_.write("mine.xml", kTuningOnly);
  TableChoice choice = choose(environment, testing::l40sPciex8());
  EXPECT_FALSE(probed_);
  EXPECT_TRUE(choice.table.forced);
  ASSERT_EQ(choice.table.rows.size(), 1u);
  EXPECT_EQ(choice.table.rows[0].channels, 4);
  EXPECT_EQ(choice.why, "FLASHCCL_TUNER_FORCE=allreduce:ring:simple:4");

  environment.force = "allreduce:ring";
  choice = choose(environment, testing::l40sPciex8());
  EXPECT_TRUE(choice.table.rows.empty());
  EXPECT_EQ(choice.warning, "FLASHCCL_TUNER_FORCE=\"allreduce:ring\": entry 1 'allreduce:ring': an "
                            "algorithm needs a protocol after it (ll, ll128, simple); nothing is "
                            "forced, NCCL keeps its own choices");
}

}  // namespace
}  // namespace flashccl
