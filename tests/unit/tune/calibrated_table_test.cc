// The whole table `flashccl tune --install` writes: a topology file the library's own parser
// accepts, matching exactly the machine, recording what it was measured on, with flashccl's bands
// and a catch-all nccl row per collective, and NCCL's <tuning> rows beside them.
#include <gtest/gtest.h>

#include "../support/sample_measurement.h"
#include "calibrated_table.h"
#include "topo/topology_file.h"
#include "tuning_file.h"

namespace flashccl {
namespace tune {
namespace {

CalibratedTable sampleTable() {
  CalibratedTable t;
  t.measurement = testing::sampleMeasurement("NVIDIA H200", 2);
  t.measurement.kernels = 1;
  TableMeasurement& m = t.measurement;
  m.commit = "abc1234";
  m.date = "2026-12-01 21:00:00";
  m.command = "flashccl tune --install -b \"1K\" -e 1M";  // quotes must survive as an attribute
  t.name = calibratedTableName(m, 2, 1);
  t.measuredLabel = "flashccl tune 2026-12-01";
  t.algorithms = {{perf::Collective::kAllReduce, "allreduce_oneshot"},
                  {perf::Collective::kAllGather, "allgather_ring--gpus_2-channels_8-proto_LL.xml"}};
  t.selection = {{perf::Collective::kAllReduce, {{0, 1024, 65536, 1.8, 0.03}}},
                 {perf::Collective::kAllGather, {}}};
  TableRow tuning;
  tuning.collective = perf::Collective::kAllReduce;
  tuning.minBytes = 1024;
  tuning.maxBytes = 4096;
  tuning.choice = {"ring", "ll", 0};
  t.tuning = {tuning};
  t.facts.ranks = 2;
  t.facts.nodes = 1;
  t.facts.provenance = {"Written by flashccl tune -- on a test"};
  return t;
}

TEST(CalibratedTable, IsATopologyFileTheLibraryAndThePluginAccept) {
  const CalibratedTable t = sampleTable();
  EXPECT_EQ(t.name, "nvidia-h200-x2-2ranks");
  const std::string text = calibratedTableText(t);
  TopologyDescription d;
  std::string error;
  ASSERT_TRUE(parseTopologyText(text, "/cache/" + t.name + ".xml", &d, &error)) << error << "\n" << text;
  EXPECT_EQ(d.name, t.name);
  // Measured, so it arms without FLASHCCL_UNMEASURED; and it says on what.
  EXPECT_FALSE(d.table.unmeasured);
  ASSERT_TRUE(d.hasMeasurement);
  EXPECT_EQ(d.measurement.gpu, "NVIDIA H200");
  EXPECT_EQ(d.measurement.gpus, 2);
  EXPECT_EQ(d.measurement.interconnect, "nvswitch");
  EXPECT_EQ(d.measurement.links, 18);
  EXPECT_EQ(d.measurement.driver, "13.0");
  EXPECT_EQ(d.measurement.cudaRuntime, "13.0");
  EXPECT_EQ(d.measurement.nccl, "2.28.9");
  EXPECT_EQ(d.measurement.flashccl, "0.9.0");
  EXPECT_EQ(d.measurement.kernels, 1);
  EXPECT_EQ(d.measurement.commit, "abc1234");
  EXPECT_EQ(d.measurement.command, t.measurement.command);
  EXPECT_NE(d.table.contentHash, 0u);
  // Matches exactly this machine type.
  ASSERT_EQ(d.matches.size(), 1u);
  EXPECT_EQ(d.matches[0].gpuCounts, std::vector<int>{2});
  // The band, then nccl for the rest of all-reduce; all-gather nccl everywhere.
  ASSERT_EQ(d.table.rows.size(), 3u);
  EXPECT_EQ(d.table.rows[0].algorithm, "allreduce_oneshot");
  EXPECT_EQ(d.table.rows[0].minBytes, 1024u);
  EXPECT_EQ(d.table.rows[0].maxBytes, 65536u);
  EXPECT_EQ(d.table.rows[0].nranks, 2);
  EXPECT_EQ(d.table.rows[0].nnodes, 0);  // any: the one-node algorithms fit one node only anyway
  EXPECT_EQ(d.table.rows[1].algorithm, "nccl");
  EXPECT_EQ(d.table.rows[1].minBytes, 0u);
  EXPECT_EQ(d.table.rows[1].maxBytes, 0u);
  EXPECT_EQ(d.table.rows[2].kind, CollKind::kAllGather);
  EXPECT_EQ(d.table.rows[2].algorithm, "nccl");
  EXPECT_NE(text.find("speedup=\"1.800\" spread=\"0.030\""), std::string::npos) << text;
  // The plugin reads the same file's <tuning>.
  TuningTable tuningTable;
  bool hasSection = false;
  ASSERT_TRUE(parseTuningText(text, "x.xml", &tuningTable, &hasSection, &error)) << error;
  EXPECT_TRUE(hasSection);
  EXPECT_EQ(tuningTable.rows.size(), 1u);
}

TEST(CalibratedTable, NamesAreFileNamesAndAttributesAreEscaped) {
  TableMeasurement m;
  m.gpu = "NVIDIA A100-SXM4-80GB";
  m.gpus = 8;
  EXPECT_EQ(calibratedTableName(m, 4, 1), "nvidia-a100-sxm4-80gb-x8-4ranks");
  EXPECT_EQ(calibratedTableName(m, 16, 2), "nvidia-a100-sxm4-80gb-x8-16ranks-2nodes");
  EXPECT_EQ(xmlAttributeText("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
