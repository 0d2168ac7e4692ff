// The <tuning> section: a file using every feature, whole topology files, broken files with their
// messages, and the shipped topologies.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "support/temp_dir.h"
#include "tuning_file.h"

namespace flashccl {
namespace {

using namespace nccl_abi;

const char* const kEveryFeature = R"(<?xml version="1.0"?>
<!-- a tuning-only file -->
<tuning nodes="1">
  <group coll="allreduce" ranks="8">
    <row maxBytes="64K" algorithm="tree" protocol="ll" channels="4"/>
    <row minBytes="64K" maxBytes="4M" pipeOps="1" algorithm="Ring" protocol="LL128"/>
    <row minBytes="64K" maxBytes="4M" regBuff="yes" algorithm="nvls_tree" protocol="simple"/>
    <row minBytes="4M" algorithm="ring" protocol="simple" channels="0"/>
  </group>
  <row coll="broadcast" ranks="any" nodes="2" algorithm="nccl" channels="8"/>
  <row coll="reducescatter" regBuff="no" algorithm="CollnetDirect" protocol="Simple"/>
  <row coll="allgather" pipeOps="2" algorithm="pat" protocol="simple"/>
  <row coll="reduce" regBuff="any" algorithm="collnet_chain" protocol="ll"/>
</tuning>
)";

TuningTable parseOk(const std::string& text, const std::string& path = "/dir/good.xml",
                    bool* hasSection = nullptr) {
  TuningTable table;
  bool section = false;
  std::string error;
  EXPECT_TRUE(parseTuningText(text, path, &table, &section, &error)) << error;
  if (hasSection) *hasSection = section;
  return table;
}

TEST(TuningFile, ParsesEveryFeature) {
  bool hasSection = false;
  const TuningTable table = parseOk(kEveryFeature, "/dir/good.xml", &hasSection);
  EXPECT_TRUE(hasSection);
  EXPECT_EQ(table.origin, "/dir/good.xml");
  EXPECT_FALSE(table.forced);
  ASSERT_EQ(table.rows.size(), 8u);

  const TuningRow& r0 = table.rows[0];
  EXPECT_EQ(r0.coll, kFuncAllReduce);
  EXPECT_EQ(r0.nranks, 8);
  EXPECT_EQ(r0.nnodes, 1);  // from <tuning>
  EXPECT_EQ(r0.minBytes, 0u);
  EXPECT_EQ(r0.maxBytes, 64u << 10);
  EXPECT_EQ(r0.pipeOps, 0);
  EXPECT_EQ(r0.regBuff, RegBuffFilter::kAny);
  EXPECT_EQ(r0.algorithm, kAlgoTree);
  EXPECT_EQ(r0.protocol, kProtoLL);
  EXPECT_EQ(r0.channels, 4);
  EXPECT_EQ(r0.line, 5);
  EXPECT_EQ(r0.source, "good.xml:5");

  const TuningRow& r1 = table.rows[1];
  EXPECT_EQ(r1.minBytes, 64u << 10);
  EXPECT_EQ(r1.maxBytes, 4u << 20);
  EXPECT_EQ(r1.pipeOps, 1);
  EXPECT_EQ(r1.algorithm, kAlgoRing);  // NCCL_ALGO's spelling
  EXPECT_EQ(r1.protocol, kProtoLL128);
  EXPECT_EQ(r1.channels, 0);

  EXPECT_EQ(table.rows[2].regBuff, RegBuffFilter::kRegistered);
  EXPECT_EQ(table.rows[2].algorithm, kAlgoNvlsTree);
  EXPECT_EQ(table.rows[3].maxBytes, 0u);  // no upper bound

  const TuningRow& broadcast = table.rows[4];
  EXPECT_EQ(broadcast.coll, kFuncBroadcast);
  EXPECT_EQ(broadcast.nranks, 0);
  EXPECT_EQ(broadcast.nnodes, 2);
  EXPECT_FALSE(broadcast.choosesAlgorithm());
  EXPECT_EQ(broadcast.channels, 8);

  EXPECT_EQ(table.rows[5].coll, kFuncReduceScatter);
  EXPECT_EQ(table.rows[5].regBuff, RegBuffFilter::kUnregistered);
  EXPECT_EQ(table.rows[5].algorithm, kAlgoCollNetDirect);
  EXPECT_EQ(table.rows[6].coll, kFuncAllGather);
  EXPECT_EQ(table.rows[6].pipeOps, 2);
  EXPECT_EQ(table.rows[6].algorithm, kAlgoPat);
  EXPECT_EQ(table.rows[7].coll, kFuncReduce);
  EXPECT_EQ(table.rows[7].algorithm, kAlgoCollNetChain);
}

TEST(TuningFile, ReadsTheTuningSectionOfATopologyFile) {
  const char* const text = R"(<topology name="box">
  <match gpus="8" interconnect="pcie"/>
  <selection><row coll="allreduce" algorithm="nccl"/></selection>
  <tuning ranks="8">
    <row coll="allreduce" maxBytes="1M" algorithm="tree" protocol="simple"/>
  </tuning>
</topology>)";
  const TuningTable table = parseOk(text);
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].nranks, 8);
  EXPECT_EQ(table.rows[0].line, 5);
}

TEST(TuningFile, ATopologyFileWithoutTuningHasNoSection) {
  bool hasSection = true;
  const TuningTable table = parseOk(
      "<topology name=\"box\"><selection><row coll=\"allreduce\" algorithm=\"nccl\"/></selection></topology>",
      "/dir/box.xml", &hasSection);
  EXPECT_FALSE(hasSection);
  EXPECT_TRUE(table.rows.empty());
}

TEST(TuningFile, AnEmptySectionIsASectionWithoutRows) {
  bool hasSection = false;
  EXPECT_TRUE(parseOk("<tuning/>", "/dir/t.xml", &hasSection).rows.empty());
  EXPECT_TRUE(hasSection);
}

TEST(TuningFile, FromDisk) {
  testing::TempDir dir;
  const std::string path = dir.write("mine.xml", kEveryFeature);
  TuningTable table;
  bool hasSection = false;
  std::string error;
  ASSERT_TRUE(parseTuningFile(path, &table, &hasSection, &error)) << error;
  EXPECT_EQ(table.rows.size(), 8u);
  EXPECT_EQ(table.rows[0].source, "mine.xml:5");

  EXPECT_FALSE(parseTuningFile(dir.path() + "/absent.xml", &table, &hasSection, &error));
  EXPECT_EQ(error, dir.path() + "/absent.xml: cannot open: No such file or directory");
}

struct BrokenCase {
  const char* name;
  const char* text;
  const char* error;
};

class BrokenTuningFile : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenTuningFile, IsRejectedWithItsLineAndProblem) {
  TuningTable table;
  bool hasSection = false;
  std::string error;
  EXPECT_FALSE(parseTuningText(GetParam().text, "dir/bad.xml", &table, &hasSection, &error));
  EXPECT_EQ(error, GetParam().error);
}

// Named in test lists by its case name, not its bytes.
void PrintTo(const BrokenCase& c, std::ostream* os) { *os << c.name; }

const BrokenCase kBrokenCases[] = {
    {"NotXml", "<tuning>\n<row coll=\"allreduce\"\n</tuning>\n",
     "dir/bad.xml:3: XML error: Error parsing start element tag"},
    {"Empty", "", "dir/bad.xml:1: XML error: No document element found"},
    {"WrongRoot", "<!-- c -->\n<tunings/>\n",
     "dir/bad.xml:2: top-level element is <tunings>, expected <tuning> or <topology>"},
    {"TwoRoots", "<tuning/>\n<tuning/>\n", "dir/bad.xml:2: more than one top-level element"},
    {"TopologyFlashcclRejects", "<topology name=\"x\">\n<tuning/>\n</topology>\n",
     "dir/bad.xml:1: <topology> has no <selection>"},
    {"TwoTuningSections", "<topology name=\"x\">\n<selection/>\n<tuning/>\n<tuning/>\n</topology>\n",
     "dir/bad.xml:4: more than one <tuning>"},
    {"UnknownElement", "<tuning>\n  <rows coll=\"allreduce\"/>\n</tuning>\n",
     "dir/bad.xml:2: unknown element <rows> in <tuning> (expected <row> or <group>)"},
    {"UnknownRowAttribute", "<tuning>\n<row coll=\"allreduce\" maxbytes=\"1M\" algorithm=\"nccl\"/>\n</tuning>",
     "dir/bad.xml:2: unknown attribute 'maxbytes' on <row> (expected coll, ranks, nodes, pipeOps, "
     "regBuff, minBytes, maxBytes, algorithm, protocol, channels)"},
    {"RowAttributeOnAGroup", "<tuning>\n<group coll=\"allreduce\" channels=\"4\"/>\n</tuning>",
     "dir/bad.xml:2: unknown attribute 'channels' on <group> (expected coll, ranks, nodes, pipeOps, "
     "regBuff)"},
    {"Text", "<tuning>\n  rows here\n</tuning>", "dir/bad.xml:1: unexpected text in <tuning>"},
    {"RowWithChild", "<tuning>\n<row coll=\"allreduce\" algorithm=\"nccl\">\n<row/>\n</row>\n</tuning>",
     "dir/bad.xml:3: <row> takes no child elements"},
    {"UnknownCollective", "<tuning>\n<row coll=\"alltoall\" algorithm=\"ring\" protocol=\"ll\"/>\n</tuning>",
     "dir/bad.xml:2: unknown collective 'alltoall' (expected broadcast, reduce, allgather, "
     "reducescatter or allreduce)"},
    {"NoCollective", "<tuning>\n<row algorithm=\"ring\" protocol=\"ll\"/>\n</tuning>",
     "dir/bad.xml:2: row has no coll, neither on the row nor on an enclosing element"},
    {"UnknownAlgorithm", "<tuning coll=\"allreduce\">\n<row algorithm=\"ringg\" protocol=\"ll\"/>\n</tuning>",
     "dir/bad.xml:2: unknown algorithm 'ringg' (expected tree, ring, collnet_direct, collnet_chain, "
     "nvls, nvls_tree, pat or nccl)"},
    {"NoAlgorithm", "<tuning coll=\"allreduce\">\n<row protocol=\"ll\" channels=\"2\"/>\n</tuning>",
     "dir/bad.xml:2: row has no algorithm (tree, ring, collnet_direct, collnet_chain, nvls, "
     "nvls_tree, pat, or nccl for NCCL's own)"},
    {"NoProtocol", "<tuning coll=\"allreduce\">\n<row algorithm=\"ring\"/>\n</tuning>",
     "dir/bad.xml:2: row names an algorithm but no protocol (ll, ll128, simple)"},
    {"UnknownProtocol", "<tuning coll=\"allreduce\">\n<row algorithm=\"ring\" protocol=\"ll64\"/>\n</tuning>",
     "dir/bad.xml:2: unknown protocol 'll64' (expected ll, ll128 or simple)"},
    {"ProtocolWithNccl", "<tuning coll=\"allreduce\">\n<row algorithm=\"nccl\" protocol=\"ll\"/>\n</tuning>",
     "dir/bad.xml:2: algorithm=\"nccl\" leaves the protocol to NCCL too: drop protocol="},
    {"BadChannels", "<tuning coll=\"allreduce\">\n<row algorithm=\"nccl\" channels=\"-1\"/>\n</tuning>",
     "dir/bad.xml:2: channels=\"-1\" is not a channel count (0 or absent: NCCL's own)"},
    {"BadSize", "<tuning coll=\"allreduce\">\n<row maxBytes=\"12X\" algorithm=\"nccl\"/>\n</tuning>",
     "dir/bad.xml:2: maxBytes=\"12X\" is not a size (bytes, or a number with K, M, G or T)"},
    {"MinAboveMax",
     "<tuning coll=\"allreduce\">\n<row minBytes=\"2M\" maxBytes=\"1M\" algorithm=\"nccl\"/>\n</tuning>",
     "dir/bad.xml:2: minBytes (2097152) is larger than maxBytes (1048576)"},
    {"BadRanks", "<tuning coll=\"allreduce\" ranks=\"0\">\n<row algorithm=\"nccl\"/>\n</tuning>",
     "dir/bad.xml:1: ranks=\"0\" is not a positive number or 'any'"},
    {"BadNodes", "<tuning coll=\"allreduce\">\n<group nodes=\"two\"/>\n</tuning>",
     "dir/bad.xml:2: nodes=\"two\" is not a positive number or 'any'"},
    {"BadPipeOps", "<tuning coll=\"allreduce\">\n<row pipeOps=\"1.5\" algorithm=\"nccl\"/>\n</tuning>",
     "dir/bad.xml:2: pipeOps=\"1.5\" is not a positive number or 'any'"},
    {"BadRegBuff", "<tuning coll=\"allreduce\">\n<row regBuff=\"maybe\" algorithm=\"nccl\"/>\n</tuning>",
     "dir/bad.xml:2: regBuff=\"maybe\" is not yes, no or any"},
    {"OverlappingBands",
     "<tuning coll=\"allreduce\">\n<row maxBytes=\"1M\" algorithm=\"ring\" protocol=\"ll\"/>\n"
     "<row minBytes=\"512K\" algorithm=\"ring\" protocol=\"simple\"/>\n</tuning>",
     "dir/bad.xml:3: overlaps bad.xml:2 (both match allreduce calls from 524288 to 1048576 bytes)"},
    {"ShadowedRow",
     "<tuning coll=\"allreduce\">\n<row algorithm=\"ring\" protocol=\"ll\"/>\n"
     "<row ranks=\"8\" maxBytes=\"1M\" algorithm=\"tree\" protocol=\"ll\"/>\n</tuning>",
     "dir/bad.xml:3: never applies: bad.xml:2 comes first and takes every call it matches"},
};

INSTANTIATE_TEST_SUITE_P(Cases, BrokenTuningFile, ::testing::ValuesIn(kBrokenCases),
                         [](const ::testing::TestParamInfo<BrokenCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(TuningFile, BandsMaySharePointsOfContactAndSpecificRowsMayPrecedeGeneralOnes) {
  const TuningTable table = parseOk(R"(<tuning coll="allreduce">
  <row ranks="8" algorithm="tree" protocol="ll"/>
  <row maxBytes="1M" algorithm="ring" protocol="ll"/>
  <row minBytes="1M" maxBytes="4M" algorithm="ring" protocol="ll128"/>
  <row minBytes="4M" algorithm="ring" protocol="simple"/>
  <row coll="allgather" algorithm="ring" protocol="simple"/>
</tuning>)");
  EXPECT_EQ(table.rows.size(), 5u);
}

// Whatever tuning the shipped files carry must load: a table the plugin rejects would be a WARN
// on every machine of that type.
TEST(TuningFile, ShippedTopologiesAreValidTuningFiles) {
  const std::string directory = FLASHCCL_SOURCE_DIR "/topologies";
  DIR* dir = opendir(directory.c_str());
  ASSERT_NE(dir, nullptr);
  std::vector<std::string> files;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0) files.push_back(name);
  }
  closedir(dir);
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    TuningTable table;
    bool hasSection = false;
    std::string error;
    EXPECT_TRUE(parseTuningFile(directory + "/" + file, &table, &hasSection, &error)) << error;
  }
}

}  // namespace
}  // namespace flashccl
