// flashccl tune's table, read back by the tuner plugin's own parser (plugins/tuner/tuning_file.h):
// what tune writes is a table the plugin accepts, with the bands and choices tune decided, alone
// or merged into a topology file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tuning_file.h"
#include "tuning_xml.h"

namespace flashccl {
namespace tune {
namespace {

std::vector<TableRow> sampleRows() {
  return {{perf::Collective::kAllReduce, 1024, 64 << 10, {"tree", "ll", 2}},
          {perf::Collective::kAllReduce, 256 << 10, 1536 << 10, {"ring", "simple", 0}},
          {perf::Collective::kAllGather, 4096, 4096, {"ring", "ll128", 16}}};
}

TableFacts sampleFacts() { return {8, 1, {"Written by flashccl tune --quick on box", "Command: flashccl tune --quick"}}; }

TuningTable parsed(const std::string& text, const std::string& path = "t.xml") {
  TuningTable table;
  bool hasSection = false;
  std::string error;
  EXPECT_TRUE(parseTuningText(text, path, &table, &hasSection, &error)) << error << "\n" << text;
  EXPECT_TRUE(hasSection);
  return table;
}

std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(TuningXml, SizesAndComments) {
  EXPECT_EQ(sizeText(1024), "1K");
  EXPECT_EQ(sizeText(1536 << 10), "1536K");
  EXPECT_EQ(sizeText(size_t(4) << 30), "4G");
  EXPECT_EQ(sizeText(1000), "1000");
  EXPECT_EQ(sizeText(0), "0");
  EXPECT_EQ(commentSafe("flashccl tune --coll allreduce --quick"), "flashccl tune - -coll allreduce - -quick");
  EXPECT_EQ(commentSafe("a---b-"), "a- - -b- ");
}

TEST(TuningXml, TheWrittenTableIsWhatThePluginReads) {
  const std::string text = tuningFile(sampleRows(), sampleFacts());
  EXPECT_EQ(text.find("--quick"), std::string::npos) << "no -- inside a comment";
  const TuningTable table = parsed(text);
  ASSERT_EQ(table.rows.size(), 3u) << text;
  const TuningRow& first = table.rows[0];
  EXPECT_EQ(first.coll, nccl_abi::kFuncAllReduce);
  EXPECT_EQ(first.nranks, 8);
  EXPECT_EQ(first.nnodes, 1);
  EXPECT_EQ(first.minBytes, 1024u);
  EXPECT_EQ(first.maxBytes, 64u << 10);
  EXPECT_EQ(first.algorithm, nccl_abi::kAlgoTree);
  EXPECT_EQ(first.protocol, nccl_abi::kProtoLL);
  EXPECT_EQ(first.channels, 2);
  EXPECT_EQ(table.rows[1].maxBytes, 1536u << 10);
  EXPECT_EQ(table.rows[1].channels, 0);
  EXPECT_EQ(table.rows[2].coll, nccl_abi::kFuncAllGather);
  EXPECT_EQ(table.rows[2].protocol, nccl_abi::kProtoLL128);
  // Both ends inclusive: the band's own sizes match, the neighbours do not.
  EXPECT_TRUE(table.rows[2].matches({nccl_abi::kFuncAllGather, 4096, 1, false}));
  EXPECT_FALSE(table.rows[2].matches({nccl_abi::kFuncAllGather, 4097, 1, false}));
  EXPECT_FALSE(table.rows[0].forCommunicator(8, 2));
}

TEST(TuningXml, AnEmptyTableIsStillATuningSection) {
  const std::string text = tuningFile({}, sampleFacts());
  EXPECT_TRUE(parsed(text).rows.empty());
  EXPECT_NE(text.find("no row: NCCL's own choice"), std::string::npos);
}

TEST(TuningXml, MergedIntoAShippedTopologyFileWithoutTuning) {
  const std::string path = std::string(FLASHCCL_SOURCE_DIR) + "/topologies/hopper-2gpu-nvlink.xml";
  const std::string original = slurp(path);
  ASSERT_EQ(original.find("<tuning"), std::string::npos) << "the test expects a file without a <tuning> section";
  std::string merged, error;
  TableFacts facts = sampleFacts();
  facts.ranks = 2;
  ASSERT_TRUE(mergeIntoFile(original, path, sampleRows(), {perf::Collective::kAllReduce}, facts, &merged, &error))
      << error;
  const TuningTable table = parsed(merged, path);  // valid as a topology file, too (the parser checks)
  EXPECT_EQ(table.rows.size(), 3u);
  // Everything else is kept as it was, layout included: the original is the merged text minus ours.
  const size_t start = merged.find("  <!--\n    Written by flashccl tune");
  const size_t end = merged.find("</tuning>\n") + std::string("</tuning>\n").size();
  ASSERT_NE(start, std::string::npos) << merged;
  EXPECT_EQ(merged.substr(0, start) + merged.substr(end), original);
  EXPECT_LT(merged.find("</doctor>"), start);
}

TEST(TuningXml, MergedIntoATableReplacesOnlyThisCommunicatorsRows) {
  const std::string existing =
      "<?xml version=\"1.0\"?>\n"
      "<!-- hand-written -->\n"
      "<tuning nodes=\"1\">\n"
      "  <group coll=\"allreduce\" ranks=\"8\">\n"
      "    <row maxBytes=\"64K\" algorithm=\"ring\" protocol=\"ll\"/>\n"
      "  </group>\n"
      "  <row coll=\"allreduce\" ranks=\"4\" algorithm=\"tree\" protocol=\"simple\"/>\n"
      "  <row coll=\"broadcast\" ranks=\"8\" algorithm=\"nccl\" channels=\"8\"/>\n"
      "  <row coll=\"allgather\" ranks=\"8\" algorithm=\"ring\" protocol=\"simple\"/>\n"
      "</tuning>\n";
  std::string merged, error;
  // allreduce and allgather were measured on 8 ranks, 1 node: their rows for that go, the rows for 4
  // ranks and for broadcast stay, after the new ones.
  ASSERT_TRUE(mergeIntoFile(existing, "mine.xml", sampleRows(),
                            {perf::Collective::kAllReduce, perf::Collective::kAllGather}, sampleFacts(), &merged,
                            &error))
      << error;
  const TuningTable table = parsed(merged, "mine.xml");
  ASSERT_EQ(table.rows.size(), 5u) << merged;
  EXPECT_EQ(table.rows[0].algorithm, nccl_abi::kAlgoTree);  // ours first
  EXPECT_EQ(table.rows[3].nranks, 4);
  EXPECT_EQ(table.rows[4].coll, nccl_abi::kFuncBroadcast);
  EXPECT_NE(merged.find("<!-- hand-written -->"), std::string::npos);
  EXPECT_EQ(merged.find("maxBytes=\"64K\" algorithm=\"ring\""), std::string::npos) << merged;
  EXPECT_EQ(merged.find("<group coll=\"allreduce\" ranks=\"8\">"), std::string::npos) << "emptied groups go";
  EXPECT_EQ(merged.find("\n\n"), std::string::npos) << "no blank lines left behind:\n" << merged;
}

TEST(TuningXml, AFileThePluginRejectsIsNotMergedInto) {
  std::string merged, error;
  EXPECT_FALSE(mergeIntoFile("<tuning><row coll=\"allreduce\" algorithm=\"ring\" protocol=\"LL129\"/></tuning>",
                             "bad.xml", sampleRows(), {perf::Collective::kAllReduce}, sampleFacts(), &merged, &error));
  EXPECT_EQ(error, "bad.xml:1: unknown protocol 'LL129' (expected ll, ll128 or simple)");
  EXPECT_FALSE(mergeIntoFile("<selection/>", "s.xml", sampleRows(), {}, sampleFacts(), &merged, &error));
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
