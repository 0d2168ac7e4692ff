// topologies/*.xml parsing: a file using every feature, and broken files with their messages.
#include <gtest/gtest.h>

#include "support/temp_dir.h"
#include "topo/topology_file.h"

namespace flashccl {
namespace {

const char* const kGoodFile = R"(<?xml version="1.0"?>
<!-- comments are fine anywhere -->
<topology name="test-box" description="A test box">
  <match gpu="NVIDIA H100*|NVIDIA H200*" gpus="2|4" interconnect="nvswitch|nvlink-direct"/>
  <match gpus="8"/>
  <selection nodes="1">
    <group coll="allreduce" ranks="2">
      <row maxBytes="64K" algorithm="allreduce_oneshot"/>
      <row minBytes="64K" maxBytes="1MiB" algorithm="allreduce_1step--gpus_2.xml"/>
      <row minBytes="1048577" algorithm="nccl"/>
    </group>
    <row coll="allgather" ranks="any" nodes="2" maxBytes="0" algorithm="allgather_direct"/>
  </selection>
</topology>
)";

TEST(TopologyFile, ParsesEveryFeature) {
  TopologyDescription d;
  std::string error;
  ASSERT_TRUE(parseTopologyText(kGoodFile, "/some/dir/good.xml", &d, &error)) << error;
  EXPECT_EQ(d.name, "test-box");
  EXPECT_EQ(d.description, "A test box");
  EXPECT_EQ(d.path, "/some/dir/good.xml");
  EXPECT_EQ(d.table.name, "test-box");

  ASSERT_EQ(d.matches.size(), 2u);
  EXPECT_EQ(d.matches[0].gpuPatterns, (std::vector<std::string>{"NVIDIA H100*", "NVIDIA H200*"}));
  EXPECT_EQ(d.matches[0].gpuCounts, (std::vector<int>{2, 4}));
  EXPECT_EQ(d.matches[0].interconnects,
            (std::vector<Interconnect>{Interconnect::kNvswitch, Interconnect::kNvlinkDirect}));
  EXPECT_EQ(d.matches[0].line, 4);
  EXPECT_TRUE(d.matches[1].gpuPatterns.empty());
  EXPECT_EQ(d.matches[1].gpuCounts, (std::vector<int>{8}));
  EXPECT_EQ(d.gpuCount(), 2);

  ASSERT_EQ(d.table.rows.size(), 4u);
  const SelectionRow& r0 = d.table.rows[0];
  EXPECT_EQ(r0.kind, CollKind::kAllReduce);
  EXPECT_EQ(r0.nranks, 2);
  EXPECT_EQ(r0.nnodes, 1);  // from <selection>
  EXPECT_EQ(r0.minBytes, 0u);
  EXPECT_EQ(r0.maxBytes, 64u * 1024);
  EXPECT_EQ(r0.algorithm, "allreduce_oneshot");
  EXPECT_EQ(r0.source, "good.xml:8");

  const SelectionRow& r1 = d.table.rows[1];
  EXPECT_EQ(r1.minBytes, 64u * 1024);
  EXPECT_EQ(r1.maxBytes, 1024u * 1024);
  EXPECT_EQ(r1.algorithm, "allreduce_1step--gpus_2.xml");
  EXPECT_EQ(r1.source, "good.xml:9");

  const SelectionRow& r2 = d.table.rows[2];
  EXPECT_EQ(r2.minBytes, 1048577u);
  EXPECT_EQ(r2.maxBytes, 0u);  // unbounded
  EXPECT_EQ(r2.algorithm, "nccl");

  const SelectionRow& r3 = d.table.rows[3];
  EXPECT_EQ(r3.kind, CollKind::kAllGather);
  EXPECT_EQ(r3.nranks, 0);  // "any"
  EXPECT_EQ(r3.nnodes, 2);  // the row overrides <selection>
  EXPECT_EQ(r3.maxBytes, 0u);
  EXPECT_EQ(r3.source, "good.xml:12");

  EXPECT_TRUE(d.hasRowsFor(2));
  // The "any" allgather row is for 2 nodes: it serves 3 ranks across 2 nodes, not on one.
  EXPECT_FALSE(d.hasRowsFor(3));
  EXPECT_TRUE(d.hasRowsFor(3, 2));
  EXPECT_FALSE(d.hasRowsFor(3, 4));
}

// The <tuning> section is the tuner plugin's (plugins/tuner checks it); the library accepts the
// file and ignores what is inside, so one file can describe both.
TEST(TopologyFile, AcceptsATuningSectionAndIgnoresIt) {
  const char* const text = R"(<topology name="x">
  <selection><row coll="allreduce" algorithm="nccl"/></selection>
  <tuning><row coll="broadcast" algorithm="ring" protocol="simple"/></tuning>
</topology>)";
  TopologyDescription d;
  std::string error;
  ASSERT_TRUE(parseTopologyText(text, "x.xml", &d, &error)) << error;
  ASSERT_EQ(d.table.rows.size(), 1u);
  EXPECT_EQ(d.table.rows[0].algorithm, "nccl");
}

// A measured table may hold rows its runs do not cover (model bands for another node count): a
// <group measured="no"> marks them, nested groups inherit it, and the other rows stay measured.
TEST(TopologyFile, GroupsMarkRowsTheTableDidNotMeasure) {
  TopologyDescription d;
  std::string error;
  ASSERT_TRUE(parseTopologyText(R"(<topology name="t"><selection nodes="1" measured="bench/results/r.md">
      <row coll="allreduce" ranks="2" algorithm="allreduce_oneshot"/>
      <group nodes="2" measured="no">
        <group coll="allgather"><row algorithm="allgather_hier"/></group>
        <row coll="allreduce" algorithm="allreduce_hier"/>
      </group>
      <row coll="reducescatter" algorithm="nccl"/></selection></topology>)",
                                "t.xml", &d, &error))
      << error;
  EXPECT_FALSE(d.table.unmeasured);
  EXPECT_EQ(d.table.measuredBy, "bench/results/r.md");
  ASSERT_EQ(d.table.rows.size(), 4u);
  EXPECT_FALSE(d.table.rows[0].unmeasured);
  EXPECT_TRUE(d.table.rows[1].unmeasured);
  EXPECT_EQ(d.table.rows[1].nnodes, 2);
  EXPECT_TRUE(d.table.rows[2].unmeasured);
  EXPECT_FALSE(d.table.rows[3].unmeasured);
}

TEST(TopologyFile, HasRowsForLooksAtRankCounts) {
  TopologyDescription d;
  std::string error;
  ASSERT_TRUE(parseTopologyText(R"(<topology name="t"><selection>
      <row coll="allreduce" ranks="8" algorithm="nccl"/></selection></topology>)",
                                "t.xml", &d, &error))
      << error;
  EXPECT_TRUE(d.hasRowsFor(8));
  EXPECT_FALSE(d.hasRowsFor(4));
  EXPECT_EQ(d.gpuCount(), 0);  // no <match> with a count
}

struct BrokenCase {
  const char* label;
  const char* text;
  const char* error;  // the whole message
};

class BrokenTopologyFile : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenTopologyFile, IsRejectedWithItsMessage) {
  TopologyDescription d;
  std::string error;
  EXPECT_FALSE(parseTopologyText(GetParam().text, "dir/bad.xml", &d, &error));
  EXPECT_EQ(error, GetParam().error);
}

const BrokenCase kBrokenCases[] = {
    {"MismatchedTags", "<topology name=\"x\">\n  <selection>\n</topology>\n",
     "dir/bad.xml:3: XML error: Start-end tags mismatch"},
    {"NotXml", "just text\n", "dir/bad.xml:2: XML error: No document element found"},
    {"OnlyAComment", "<!-- nothing -->\n", "dir/bad.xml:2: XML error: No document element found"},
    {"WrongRoot", "<!-- c -->\n<machine name=\"x\"/>\n",
     "dir/bad.xml:2: top-level element is <machine>, expected <topology>"},
    {"TwoRoots", "<topology name=\"a\"><selection/></topology>\n<topology name=\"b\"/>\n",
     "dir/bad.xml:2: more than one top-level element"},
    {"NoName", "<topology>\n  <selection/>\n</topology>\n", "dir/bad.xml:1: <topology> needs a name"},
    {"BadName", "<topology name=\"my box\"><selection/></topology>",
     "dir/bad.xml:1: topology name 'my box' may use only letters, digits, '-', '_' and '.'"},
    {"NoSelection", "<topology name=\"x\">\n  <match gpus=\"2\"/>\n</topology>\n",
     "dir/bad.xml:1: <topology> has no <selection>"},
    {"TwoSelections", "<topology name=\"x\">\n<selection/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:3: more than one <selection>"},
    {"UnknownElement", "<topology name=\"x\">\n<selection/>\n<tunning/>\n</topology>\n",
     "dir/bad.xml:3: unknown element <tunning> in <topology> (expected <match>, <measurement>, "
     "<selection>, <tuning> or <doctor>)"},
    {"TwoMeasurements", "<topology name=\"x\">\n<measurement/>\n<measurement/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:3: more than one <measurement>"},
    {"MeasurementCountNotANumber", "<topology name=\"x\">\n<measurement gpus=\"two\"/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:2: gpus=\"two\" on <measurement> is not a count"},
    {"MeasurementUnknownAttribute", "<topology name=\"x\">\n<measurement gpu=\"a\" ncl=\"2\"/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:2: unknown attribute 'ncl' on <measurement> (expected gpu, gpus, interconnect, links, driver, cuda, "
     "nccl, flashccl, kernels, commit, date, command)"},
    {"TwoTunings", "<topology name=\"x\">\n<selection/>\n<tuning/>\n<tuning/>\n</topology>\n",
     "dir/bad.xml:4: more than one <tuning>"},
    {"TwoDoctors", "<topology name=\"x\">\n<selection/>\n<doctor/>\n<doctor/>\n</topology>\n",
     "dir/bad.xml:4: more than one <doctor>"},
    {"UnknownTopologyAttribute", "<topology name=\"x\" version=\"2\"><selection/></topology>",
     "dir/bad.xml:1: unknown attribute 'version' on <topology> (expected name, description)"},
    {"EmptyMatch", "<topology name=\"x\">\n<match/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:2: <match> needs at least one of gpu, gpus, interconnect"},
    {"BadGpuCount", "<topology name=\"x\">\n<match gpus=\"eight\"/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:2: gpus=\"eight\": 'eight' is not a positive GPU count"},
    {"ZeroGpuCount", "<topology name=\"x\">\n<match gpus=\"2|0\"/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:2: gpus=\"2|0\": '0' is not a positive GPU count"},
    {"EmptyGpuPattern", "<topology name=\"x\">\n<match gpu=\"NVIDIA H100*|\"/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:2: empty GPU name pattern in gpu=\"NVIDIA H100*|\""},
    {"BadInterconnect",
     "<topology name=\"x\">\n<match interconnect=\"nvlink\"/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:2: unknown interconnect 'nvlink' (expected nvswitch, nvlink-direct, pcie, none or "
     "unknown)"},
    {"UnknownMatchAttribute", "<topology name=\"x\">\n<match gpus=\"2\" cpu=\"x86\"/>\n<selection/>\n</topology>\n",
     "dir/bad.xml:2: unknown attribute 'cpu' on <match> (expected gpu, gpus, interconnect)"},
    {"MisspeltRowAttribute",
     "<topology name=\"x\">\n<selection>\n  <row coll=\"allreduce\" maxbytes=\"1M\" algorithm=\"nccl\"/>\n"
     "</selection>\n</topology>\n",
     "dir/bad.xml:3: unknown attribute 'maxbytes' on <row> (expected coll, ranks, nodes, minBytes, "
     "maxBytes, algorithm, speedup, spread)"},
    {"RowWithoutColl",
     "<topology name=\"x\">\n<selection>\n<group ranks=\"2\">\n<row algorithm=\"nccl\"/>\n</group>\n"
     "</selection>\n</topology>\n",
     "dir/bad.xml:4: row has no coll (allreduce, allgather or reducescatter), neither on the row nor "
     "on an enclosing <group>"},
    {"UnknownColl",
     "<topology name=\"x\">\n<selection>\n<row coll=\"alltoall\" algorithm=\"nccl\"/>\n</selection>\n"
     "</topology>\n",
     "dir/bad.xml:3: unknown collective 'alltoall' (expected allreduce, allgather or reducescatter)"},
    {"UnknownCollOnGroup",
     "<topology name=\"x\">\n<selection>\n<group coll=\"all_reduce\">\n</group>\n</selection>\n"
     "</topology>\n",
     "dir/bad.xml:3: unknown collective 'all_reduce' (expected allreduce, allgather or reducescatter)"},
    {"BadSize",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\" maxBytes=\"12Q\" algorithm=\"nccl\"/>\n"
     "</selection>\n</topology>\n",
     "dir/bad.xml:3: maxBytes=\"12Q\" is not a size (bytes, or a number with K, M, G or T)"},
    {"NegativeSize",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\" minBytes=\"-1\" algorithm=\"nccl\"/>\n"
     "</selection>\n</topology>\n",
     "dir/bad.xml:3: minBytes=\"-1\" is not a size (bytes, or a number with K, M, G or T)"},
    {"MinAboveMax",
     "<topology name=\"x\">\n<selection>\n"
     "<row coll=\"allreduce\" minBytes=\"2K\" maxBytes=\"1K\" algorithm=\"nccl\"/>\n</selection>\n"
     "</topology>\n",
     "dir/bad.xml:3: minBytes (2048) is larger than maxBytes (1024)"},
    {"NoAlgorithm",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\"/>\n</selection>\n</topology>\n",
     "dir/bad.xml:3: row has no algorithm (a built-in name, an XML algorithm file or 'nccl')"},
    {"EmptyAlgorithm",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\" algorithm=\" \"/>\n</selection>\n"
     "</topology>\n",
     "dir/bad.xml:3: row has no algorithm (a built-in name, an XML algorithm file or 'nccl')"},
    {"AlgorithmWithSpace",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\" algorithm=\"one shot\"/>\n"
     "</selection>\n</topology>\n",
     "dir/bad.xml:3: algorithm 'one shot' contains white space"},
    {"ZeroRanks",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\" ranks=\"0\" algorithm=\"nccl\"/>\n"
     "</selection>\n</topology>\n",
     "dir/bad.xml:3: ranks=\"0\" is not a positive number or 'any'"},
    {"PlacementRefused",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\" placement=\"both\" algorithm=\"nccl\"/>\n"
     "</selection>\n</topology>\n",
     "dir/bad.xml:3: placement cannot select an algorithm (the ranks of one call may differ in "
     "in-place vs out-of-place); remove the attribute"},
    {"TextInSelection", "<topology name=\"x\">\n<selection>\n  allreduce: nccl\n</selection>\n</topology>\n",
     "dir/bad.xml:2: unexpected text in <selection>"},
    {"RowWithChild",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\" algorithm=\"nccl\">\n"
     "  <param name=\"x\"/>\n</row>\n</selection>\n</topology>\n",
     "dir/bad.xml:4: <row> takes no child elements"},
    {"GroupMeasuredNamesRuns",
     "<topology name=\"x\">\n<selection measured=\"a.md\">\n<group coll=\"allreduce\" measured=\"b.md\">\n"
     "<row algorithm=\"nccl\"/>\n</group>\n</selection>\n</topology>\n",
     "dir/bad.xml:3: measured=\"b.md\" on a <group> can only be \"no\" (the <selection>'s measured names the runs)"},
    {"RowMeasuredRefused",
     "<topology name=\"x\">\n<selection>\n<row coll=\"allreduce\" measured=\"no\" algorithm=\"nccl\"/>\n"
     "</selection>\n</topology>\n",
     "dir/bad.xml:3: unknown attribute 'measured' on <row> (expected coll, ranks, nodes, minBytes, maxBytes, "
     "algorithm, speedup, spread)"},
    {"UnknownElementInGroup",
     "<topology name=\"x\">\n<selection>\n<group coll=\"allreduce\">\n<rule/>\n</group>\n</selection>\n"
     "</topology>\n",
     "dir/bad.xml:4: unknown element <rule> in <group> (expected <row> or <group>)"},
};

INSTANTIATE_TEST_SUITE_P(Messages, BrokenTopologyFile, ::testing::ValuesIn(kBrokenCases),
                         [](const ::testing::TestParamInfo<BrokenCase>& info) {
                           return std::string(info.param.label);
                         });

TEST(TopologyFile, MissingFileSaysSo) {
  TopologyDescription d;
  std::string error;
  EXPECT_FALSE(parseTopologyFile("/nonexistent/dir/x.xml", &d, &error));
  EXPECT_EQ(error, "/nonexistent/dir/x.xml: cannot open: No such file or directory");
}

TEST(TopologyFile, DirectorySkipsBadFilesWithAWarning) {
  testing::TempDir dir;
  dir.write("b-good.xml", "<topology name=\"b\"><selection/></topology>");
  dir.write("a-good.xml", "<topology name=\"a\"><selection/></topology>");
  dir.write("c-bad.xml", "<topology name=\"c\">\n<selection>\n<row/>\n</selection>\n</topology>\n");
  dir.write("d-same-name.xml", "<topology name=\"a\"><selection/></topology>");
  dir.write("notes.txt", "not a topology");
  std::vector<std::string> warnings;
  std::vector<TopologyDescription> found = loadTopologyDirectory(dir.path(), &warnings);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "a");  // file-name order
  EXPECT_EQ(found[1].name, "b");
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], dir.path() + "/c-bad.xml:3: row has no coll (allreduce, allgather or "
                                      "reducescatter), neither on the row nor on an enclosing "
                                      "<group> (file skipped)");
  EXPECT_EQ(warnings[1], dir.path() + "/d-same-name.xml: topology name 'a' is already used by " +
                             dir.path() + "/a-good.xml (file skipped)");
}

TEST(TopologyFile, MissingDirectoryIsAWarningNotAFailure) {
  std::vector<std::string> warnings;
  EXPECT_TRUE(loadTopologyDirectory("/nonexistent/topologies", &warnings).empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "/nonexistent/topologies: cannot open directory: No such file or directory");
}

}  // namespace
}  // namespace flashccl
