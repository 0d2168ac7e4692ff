// --verify's plan for a table's <selection> rows: which sizes each collective is measured at (the
// bands' ends and the sweep's sizes, within -b/-e) and the perf runs that measure them.
#include <gtest/gtest.h>

#include "selection_verify.h"

namespace flashccl {
namespace tune {
namespace {

SelectionTable parsed(const std::string& rows) {
  TopologyDescription description;
  std::string error;
  EXPECT_TRUE(parseTopologyText("<topology name=\"t\"><selection measured=\"x\">" + rows + "</selection></topology>",
                                "t.xml", &description, &error))
      << error;
  return description.table;
}

TuneOptions sweep() {
  TuneOptions o;
  o.sizes = {1024, 65536, 4};  // 1K 4K 16K 64K
  o.collectives = {perf::Collective::kAllReduce, perf::Collective::kAllGather};
  return o;
}

TEST(SelectionVerifyPlan, BandEndsAndTheSweepsSizesWithinTheRange) {
  const SelectionTable table = parsed(
      "<group coll=\"allreduce\" ranks=\"2\"><row minBytes=\"2K\" maxBytes=\"16K\" algorithm=\"allreduce_oneshot\"/>"
      "<row minBytes=\"1M\" algorithm=\"allreduce_twoshot\"/><row algorithm=\"nccl\"/></group>"
      "<group coll=\"allreduce\" ranks=\"8\"><row maxBytes=\"3K\" algorithm=\"allreduce_oneshot\"/></group>"
      "<group coll=\"reducescatter\" ranks=\"2\"><row algorithm=\"reducescatter_direct\"/></group>");
  const SelectionToMeasure measure = selectionToMeasure(table, 2, sweep());
  // All-reduce: the sweep's sizes, and the band end 2K; 1M is beyond -e; the 8-rank row's 3K is
  // another communicator's. All-gather has no row; reduce-scatter is not in --coll.
  ASSERT_EQ(measure.collectives.size(), 1u);
  EXPECT_EQ(measure.collectives[0].collective, perf::Collective::kAllReduce);
  EXPECT_EQ(measure.collectives[0].bytes, (std::vector<size_t>{1024, 2048, 4096, 16384, 65536}));
  const std::vector<PlannedRun> runs = selectionRuns(measure, sweep(), "/t.xml");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].kind, RunKind::kSelection);
  EXPECT_EQ(runs[0].minBytes, 1024u);
  EXPECT_EQ(runs[0].maxBytes, 65536u);
  EXPECT_EQ(runs[1].minBytes, 2048u);  // -f 4 from 1K never reaches 2K: a run of its own
  EXPECT_EQ(runs[1].maxBytes, 2048u);
  EXPECT_EQ(runs[1].label, "flashccl's selection with the table, 2K");
  EXPECT_EQ(runs[1].environment.at("FLASHCCL_TOPO_FILE"), "/t.xml");
  EXPECT_EQ(runs[1].environment.at("FLASHCCL_TUNER_FORCE"), "nccl");
  const std::vector<std::string> args = perfArguments(sweep(), runs[1], "/w/perf.json");
  const std::string joined = [&] {
    std::string text;
    for (const std::string& a : args) text += a + " ";
    return text;
  }();
  EXPECT_NE(joined.find("-b 2048 -e 2048 -f 4 --coll allreduce -d float,bfloat16 --placement both "), std::string::npos)
      << joined;
}

TEST(SelectionVerifyPlan, ABandEndPerfCannotRunIsNamed) {
  // 1026 bytes of all-gather do not split over 2 ranks of floats.
  const SelectionTable table =
      parsed("<group coll=\"allgather\" ranks=\"2\"><row maxBytes=\"1026\" algorithm=\"allgather_direct\"/></group>");
  const SelectionToMeasure measure = selectionToMeasure(table, 2, sweep());
  ASSERT_EQ(measure.collectives.size(), 1u);
  EXPECT_EQ(measure.collectives[0].bytes, (std::vector<size_t>{1024}));
  ASSERT_EQ(measure.unmeasurable.size(), 1u);
  EXPECT_NE(measure.unmeasurable[0].find("t.xml:1: band end 1026 not measured: "), std::string::npos)
      << measure.unmeasurable[0];
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
