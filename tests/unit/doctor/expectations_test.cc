// Busbw floors and hardware floors: --expect JSON, the <doctor> element of topology files (the
// shipped ones included), and how the two combine.
#include <gtest/gtest.h>

#include "expectations.h"
#include "support/temp_dir.h"
#include "sysfs_files.h"
#include "topo/topology_file.h"

namespace flashccl {
namespace doctor {
namespace {

TEST(DoctorExpectations, CollectiveNamesFollowTheSharedSpelling) {
  std::string name;
  EXPECT_TRUE(normalizeCollectiveName("all_reduce", &name));
  EXPECT_EQ(name, "allreduce");
  EXPECT_TRUE(normalizeCollectiveName("AllToAll", &name));
  EXPECT_EQ(name, "alltoall");
  EXPECT_TRUE(normalizeCollectiveName("reduce-scatter", &name));
  EXPECT_EQ(name, "reducescatter");
  EXPECT_FALSE(normalizeCollectiveName("broadcast", &name));
}

TEST(DoctorExpectations, JsonFloors) {
  Expectations expect;
  std::string error;
  ASSERT_TRUE(parseExpectationJson(R"({
      "busbw": [{"collective": "allreduce", "ranks": 8, "bytes": "1G", "min_gbps": 300},
                {"collective": "all_gather", "bytes": 1048576, "min_gbps": 20.5}],
      "h2d_gbps": 50, "memory_gbps": 4000, "pair_latency_us": 1.2, "nic_rate_gbps": 400})",
                                   "box.json", &expect, &error))
      << error;
  ASSERT_EQ(expect.busbw.size(), 2u);
  EXPECT_EQ(expect.busbw[0].bytes, size_t(1) << 30);
  EXPECT_EQ(expect.busbw[1].collective, "allgather");
  EXPECT_EQ(expect.busbw[1].ranks, 0);
  EXPECT_EQ(expect.h2dGBps, 50.0);
  EXPECT_EQ(expect.d2hGBps, 0.0);
  EXPECT_EQ(expect.pairLatencyMicros, 1.2);
  EXPECT_EQ(expect.sources, std::vector<std::string>{"box.json"});
  ASSERT_NE(expect.floorFor("allreduce", 8, size_t(1) << 30), nullptr);
  EXPECT_EQ(expect.floorFor("allreduce", 4, size_t(1) << 30), nullptr);
  EXPECT_NE(expect.floorFor("allgather", 4, 1 << 20), nullptr);  // any rank count
  EXPECT_EQ(expect.floorFor("allgather", 4, 2 << 20), nullptr);
}

TEST(DoctorExpectations, JsonMistakesAreErrorsThatSayWhatIsValid) {
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"[]", "expected a JSON object"},
      {"{\"h2d\": 5}", "unknown key 'h2d' (known: busbw, h2d_gbps, d2h_gbps, memory_gbps"},
      {"{\"h2d_gbps\": -5}", "h2d_gbps must be a positive number"},
      {"{\"busbw\": {}}", "busbw must be a list"},
      {"{\"busbw\": [{\"collective\": \"bcast\", \"bytes\": 1, \"min_gbps\": 1}]}",
       "collective must be one of allreduce|allgather|reducescatter|alltoall"},
      {"{\"busbw\": [{\"collective\": \"allreduce\", \"bytes\": \"1X\", \"min_gbps\": 1}]}", "bytes must be a size"},
      {"{\"busbw\": [{\"collective\": \"allreduce\", \"bytes\": 1, \"min\": 1}]}", "unknown key 'min'"},
      {"{not json", "not JSON"},
  };
  for (const auto& c : cases) {
    Expectations expect;
    std::string error;
    EXPECT_FALSE(parseExpectationJson(c.text, "x.json", &expect, &error)) << c.text;
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
    EXPECT_EQ(error.compare(0, 8, "x.json: "), 0) << error;
  }
}

TEST(DoctorExpectations, TopologyDoctorElement) {
  const std::string xml =
      "<topology name=\"t\">\n"
      "  <selection/>\n"
      "  <doctor>\n"
      "    <!-- a comment -->\n"
      "    <busbw coll=\"allreduce\" ranks=\"2\" bytes=\"256M\" min=\"223\"/>\n"
      "  </doctor>\n"
      "</topology>\n";
  Expectations expect;
  std::string error;
  ASSERT_TRUE(parseTopologyExpectations(xml, "dir/t.xml", &expect, &error)) << error;
  ASSERT_EQ(expect.busbw.size(), 1u);
  EXPECT_EQ(expect.busbw[0].source, "t.xml:5");
  EXPECT_EQ(expect.busbw[0].bytes, size_t(256) << 20);
  // The library's own parser accepts the file too (it skips <doctor>).
  TopologyDescription description;
  EXPECT_TRUE(parseTopologyText(xml, "dir/t.xml", &description, &error)) << error;

  EXPECT_FALSE(parseTopologyExpectations("<topology><doctor><floor/></doctor></topology>", "t.xml", &expect, &error));
  EXPECT_NE(error.find("unknown element <floor> in <doctor>"), std::string::npos);
  EXPECT_FALSE(parseTopologyExpectations(
      "<topology><doctor><busbw coll=\"allreduce\" bytes=\"1M\" min=\"5\" max=\"9\"/></doctor></topology>",
      "t.xml", &expect, &error));
  EXPECT_NE(error.find("unknown attribute 'max'"), std::string::npos);
  EXPECT_FALSE(parseTopologyExpectations(
      "<topology><doctor><busbw coll=\"allreduce\" bytes=\"1M\" min=\"0\"/></doctor></topology>", "t.xml",
      &expect, &error));
  Expectations none;
  EXPECT_TRUE(parseTopologyExpectations("<topology><selection/></topology>", "t.xml", &none, &error));
  EXPECT_TRUE(none.busbw.empty());
}

TEST(DoctorExpectations, TheShippedTwoGpuHopperFileHasFloorsForEverySizeDoctorMeasures) {
  const std::string path = std::string(FLASHCCL_SOURCE_DIR) + "/topologies/hopper-2gpu-nvlink.xml";
  std::string text, error;
  ASSERT_TRUE(readWholeFile(path, &text));
  Expectations expect;
  ASSERT_TRUE(parseTopologyExpectations(text, path, &expect, &error)) << error;
  for (const char* collective : {"allreduce", "allgather", "reducescatter"}) {
    for (int mib : {1, 4, 16, 64, 256, 1024}) {
      const BusbwFloor* floor = expect.floorFor(collective, 2, size_t(mib) << 20);
      ASSERT_NE(floor, nullptr) << collective << " " << mib << " MiB";
      EXPECT_GT(floor->minGBps, 0.0);
    }
  }
  // 75% of what perf measured for NCCL there (bench/results/2026-11-30-h200x2-eager.md).
  EXPECT_EQ(expect.floorFor("allreduce", 2, size_t(256) << 20)->minGBps, 223.0);
  EXPECT_EQ(expect.floorFor("allreduce", 8, size_t(256) << 20), nullptr);
}

TEST(DoctorExpectations, TheOperatorsFileWinsOverTheTopologyFile) {
  Expectations base;
  std::string error;
  ASSERT_TRUE(parseTopologyExpectations(
      "<topology><doctor><busbw coll=\"allreduce\" ranks=\"2\" bytes=\"1M\" min=\"55\"/>"
      "<busbw coll=\"allgather\" ranks=\"2\" bytes=\"1M\" min=\"34\"/></doctor></topology>",
      "t.xml", &base, &error));
  Expectations mine;
  ASSERT_TRUE(parseExpectationJson(
      R"({"busbw": [{"collective": "allreduce", "ranks": 2, "bytes": "1M", "min_gbps": 70}], "h2d_gbps": 40})",
      "mine.json", &mine, &error));
  mergeExpectations(&base, mine);
  EXPECT_EQ(base.busbw.size(), 2u);
  EXPECT_EQ(base.floorFor("allreduce", 2, 1 << 20)->minGBps, 70.0);
  EXPECT_EQ(base.floorFor("allreduce", 2, 1 << 20)->source, "mine.json");
  EXPECT_EQ(base.floorFor("allgather", 2, 1 << 20)->minGBps, 34.0);
  EXPECT_EQ(base.h2dGBps, 40.0);
  EXPECT_EQ(base.sources, (std::vector<std::string>{"t.xml", "mine.json"}));
}

TEST(DoctorExpectations, AnExpectFileThatCannotBeReadSaysSo) {
  Expectations expect;
  std::string error;
  EXPECT_FALSE(loadExpectationFile("/nonexistent/box.json", &expect, &error));
  EXPECT_NE(error.find("/nonexistent/box.json: cannot open"), std::string::npos);
  testing::TempDir dir;
  const std::string path = dir.write("box.json", R"({"memory_gbps": 4000})");
  EXPECT_TRUE(loadExpectationFile(path, &expect, &error)) << error;
  EXPECT_EQ(expect.memoryGBps, 4000.0);
}

}  // namespace
}  // namespace doctor
}  // namespace flashccl
