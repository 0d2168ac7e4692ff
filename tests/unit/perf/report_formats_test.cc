// flashccl perf: the nccl-tests-style table, the markdown and the JSON record (nlohmann/json),
// against golden text and by round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "report_sink.h"
#include "report_json.h"
#include "result_format.h"

namespace flashccl {
namespace perf {
namespace {

RunInfo sampleInfo() {
  RunInfo info;
  info.flashcclVersion = "0.1.0";
  info.flashcclCommit = "ae5c6a3-dirty";
  info.ncclVersion = "2.28.9";
  info.ncclLibrary = "/usr/lib/libnccl.so.2";
  info.date = "2026-12-01 10:00:00 UTC";
  info.host = "vm";
  info.machine = "vm: 2 x NVIDIA H200";
  info.command = "flashccl perf -b 8 -e 16 --coll allreduce,allgather";
  info.layout.threads = 2;
  info.devices = {{0, 0, 629, "vm", "0000:00:06.0", "NVIDIA H200"},
                  {1, 1, 629, "vm", "0000:00:07.0", "NVIDIA H200"}};
  info.environment = {{"FLASHCCL_DISABLE", true, "1"}, {"NCCL_NVLS_ENABLE", true, "0"},
                      {"NCCL_ALGO", false, ""}};
  info.environmentSetByPerf = {{"NCCL_NVLS_ENABLE", true, "0"}};
  info.minBytes = 8;
  info.maxBytes = 16;
  info.stepFactor = 2;
  info.iters = 20;
  info.warmupIters = 5;
  info.pairs = 3;
  info.graphReplays = 0;
  info.check = true;
  info.seed = 1;
  return info;
}

SizeResult sampleResult(Collective coll, size_t bytes, double ncclUs, double flashUs,
                        const std::string& algorithm, uint64_t wrong = 0,
                        Placement placement = Placement::kOutOfPlace) {
  SizeResult r;
  r.placement = placement;
  r.collective = coll;
  r.bytes = bytes;
  r.count = bytes / 4;
  r.dataType = DataType::kFloat;
  r.op = coll == Collective::kAllGather ? ReduceOp::kNone : ReduceOp::kSum;
  r.ncclSamples = {ncclUs, ncclUs + 1, ncclUs - 1};
  r.flashcclSamples = {flashUs, flashUs + 0.5, flashUs - 0.5};
  r.timing = summarizePairs(r.ncclSamples, r.flashcclSamples);
  r.checked = true;
  r.wrong = wrong;
  r.checkRule = "bitwise";
  r.algorithm = algorithm;
  return r;
}

RunReport sampleReport() {
  RunReport report;
  report.info = sampleInfo();
  report.results = {sampleResult(Collective::kAllReduce, 8, 10.0, 5.0, "oneshot"),
                    sampleResult(Collective::kAllReduce, 8, 10.0, 5.0, "oneshot", 0, Placement::kInPlace),
                    sampleResult(Collective::kAllReduce, 16, 11.0, 11.0, "NCCL"),
                    sampleResult(Collective::kAllGather, 16, 9.0, 6.0, "allgather_direct", 2)};
  return report;
}

TEST(TableFormat, HeaderAndRowsGolden) {
  const RunInfo info = sampleInfo();
  EXPECT_EQ(formatTableHeader(Collective::kAllReduce, info),
            "# allreduce on 2 ranks, eager; time = median of 3 pairs of blocks, flashccl's; nccl = NCCL's time; "
            "speedup = median of the pairs' NCCL/flashccl ratios; spread f/n = flashccl's/NCCL's (max-min)/median "
            "of the pairs' times\n"
            "#                                                                       out-of-place"
            "                                                   in-place\n"
            "#       size        count      type  redop  root     time   algbw   busbw #wrong     nccl speedup     f     n"
            "     time   algbw   busbw #wrong     nccl speedup     f     n  algorithm\n"
            "#        (B)   (elements)                            (us)  (GB/s)  (GB/s)            (us)         sprd% sprd%"
            "     (us)  (GB/s)  (GB/s)            (us)         sprd% sprd%\n");
  const SizeResult out = sampleResult(Collective::kAllReduce, 1048576, 15.57, 10.0, "oneshot");
  const SizeResult in = sampleResult(Collective::kAllReduce, 1048576, 15.57, 10.0, "oneshot", 0, Placement::kInPlace);
  // nccl-tests' columns for flashccl, then NCCL's time, the speedup and both spreads; the same for
  // in-place; AllReduce busbw on 2 ranks equals algbw.
  EXPECT_EQ(formatRow(&out, &in, 2),
            "     1048576       262144     float    sum    -1    10.00  104.86  104.86      0    15.57    1.56  10.0  12.8"
            "    10.00  104.86  104.86      0    15.57    1.56  10.0  12.8  oneshot\n");
  SizeResult unchecked = out;
  unchecked.checked = false;
  unchecked.algorithm = "NCCL";
  EXPECT_EQ(formatRow(&unchecked, nullptr, 2),
            "     1048576       262144     float    sum    -1    10.00  104.86  104.86    N/A    15.57    1.56  10.0  12.8"
            "        -       -       -      -        -       -     -     -  NCCL\n");
  EXPECT_NE(formatRow(&out, &unchecked, 2).find("  oneshot / NCCL\n"), std::string::npos);
}

TEST(TableFormat, RunHeaderCarriesVersionsCommitDevicesAndEnvironment) {
  const std::string header = formatRunHeader(sampleInfo());
  EXPECT_EQ(header,
            "# flashccl perf 0.1.0 (ae5c6a3-dirty): flashccl vs NCCL, side by side on the same communicators\n"
            "# nRanks 2: 2 threads x 1 GPU each (threads mode)\n"
            "# minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 "
            "graph: 0 cycles: 1 pairs: 3 average: 1 seed: 1\n"
            "#\n"
            "# Using devices\n"
            "#  Rank  0 Pid    629 on         vm device  0 [0000:00:06.0] NVIDIA H200\n"
            "#  Rank  1 Pid    629 on         vm device  1 [0000:00:07.0] NVIDIA H200\n"
            "# NCCL version 2.28.9 (/usr/lib/libnccl.so.2)\n"
            "# flashccl version 0.1.0, commit ae5c6a3-dirty\n"
            "# env: FLASHCCL_DISABLE=1 NCCL_NVLS_ENABLE=0 NCCL_ALGO=(unset)\n"
            "# set by perf for both libraries: NCCL_NVLS_ENABLE=0\n"
            "# command: flashccl perf -b 8 -e 16 --coll allreduce,allgather\n"
            "#\n");
}

TEST(TableFormat, PrinterPairsPlacementsIntoRowsAndOpensOneTablePerCollective) {
  const RunReport report = sampleReport();
  TablePrinter printer;
  std::string text = printer.begin(report.info);
  std::vector<std::string> pieces;
  for (const SizeResult& r : report.results) pieces.push_back(printer.add(r));
  // The out-of-place result waits for its in-place partner; a size without one prints alone.
  EXPECT_EQ(pieces[0].find("\n           8 "), std::string::npos) << pieces[0];
  EXPECT_EQ(pieces[1].rfind("           8            2     float    sum    -1     5.00", 0), 0u) << pieces[1];
  for (const std::string& piece : pieces) text += piece;
  text += printer.finish(report);
  EXPECT_NE(text.find("# allreduce on 2 ranks"), std::string::npos);
  EXPECT_NE(text.find("# allgather on 2 ranks"), std::string::npos);
  EXPECT_LT(text.find("# allreduce: avg busbw"), text.find("# allgather on 2 ranks"));
  EXPECT_NE(text.find("          16            4     float    sum    -1    11.00"), std::string::npos) << text;
  EXPECT_NE(text.find("# allreduce: avg busbw NCCL 0.00 GB/s, flashccl 0.00 GB/s; speedup "
                      "geomean 1.59 (min 1.00, max 2.00); #wrong 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# Out of bounds values : 2 FAILED\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# Avg bus bandwidth    : "), std::string::npos) << text;
  EXPECT_NE(text.find("# #wrong total: 2 in 1 of 4 results: FAILED"), std::string::npos) << text;
}

TEST(TableFormat, RunFooterVerdicts) {
  RunReport report = sampleReport();
  report.results[3].wrong = 0;
  const std::string right = formatRunFooter(report);
  EXPECT_NE(right.find("# Out of bounds values : 0 OK\n"), std::string::npos) << right;
  EXPECT_NE(right.find("# #wrong total: 0 in 4 results: flashccl matches NCCL everywhere\n"), std::string::npos);
  for (SizeResult& r : report.results) r.checked = false;
  EXPECT_NE(formatRunFooter(report).find("# results not checked (-c 0)\n"), std::string::npos);
}

TEST(JsonRecord, CarriesEverythingARecordNeeds) {
  const Json j = reportToJson(sampleReport());
  EXPECT_EQ(j["tool"], "flashccl perf");
  EXPECT_EQ(j["schema"], kReportSchemaVersion);
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["flashccl_commit"], "ae5c6a3-dirty");
  EXPECT_EQ(j["nccl_version"], "2.28.9");
  EXPECT_EQ(j["environment"]["NCCL_ALGO"], nullptr);
  EXPECT_EQ(j["environment_set_by_perf"]["NCCL_NVLS_ENABLE"], "0");
  EXPECT_EQ(j["settings"]["pairs"], 3);
  ASSERT_EQ(j["results"].size(), 4u);
  const Json& r = j["results"][0];
  EXPECT_EQ(r["collective"], "allreduce");
  EXPECT_EQ(r["size_bytes"], 8);
  EXPECT_EQ(r["in_place"], false);
  EXPECT_EQ(r["root"], -1);
  EXPECT_EQ(r["nccl"]["time_us"], 10.0);
  EXPECT_EQ(r["nccl"]["samples_us"], (std::vector<double>{10.0, 11.0, 9.0}));
  EXPECT_EQ(r["nccl"]["spread"]["min_us"], 9.0);
  EXPECT_EQ(r["nccl"]["spread"]["max_us"], 11.0);
  EXPECT_EQ(r["nccl"]["spread_percent"], 20.0);
  EXPECT_EQ(r["flashccl"]["time_us"], 5.0);
  EXPECT_EQ(r["speedup"], 2.0);
  EXPECT_EQ(r["algorithm"], "oneshot");
  EXPECT_EQ(j["results"][3]["wrong"], 2);
  EXPECT_EQ(j["wrong_total"], 2);
  RunReport unchecked = sampleReport();
  unchecked.results[0].checked = false;
  EXPECT_EQ(reportToJson(unchecked)["results"][0]["wrong"], nullptr);
}

TEST(JsonRecord, RoundTripsThroughAFile) {
  const RunReport original = sampleReport();
  const std::string path = testing::TempDir() + "/record.json";
  std::string error;
  ASSERT_TRUE(writeReportFile(path, original, false, &error)) << error;
  RunReport parsed;
  bool complete = true;
  ASSERT_TRUE(readReportFile(path, &parsed, &complete, &error)) << error;
  EXPECT_FALSE(complete);
  EXPECT_EQ(reportToJson(parsed, false), reportToJson(original, false));
  EXPECT_EQ(formatMarkdown(parsed), formatMarkdown(original));
}

TEST(JsonRecord, LaunchedModeRoundTrips) {
  RunReport original = sampleReport();
  original.info.layout = RankLayout();
  original.info.layout.processes = 2;
  original.info.layout.separateProcesses = true;
  original.info.layout.launched = true;
  const Json json = reportToJson(original);
  EXPECT_EQ(json["mode"], "launched");
  RunReport parsed;
  bool complete = false;
  std::string error;
  ASSERT_TRUE(reportFromJson(json, &parsed, &complete, &error)) << error;
  EXPECT_TRUE(parsed.info.layout.launched);
  EXPECT_EQ(parsed.info.layout.nranks(), 2);
  EXPECT_EQ(reportToJson(parsed), json);
}

TEST(JsonRecord, RejectsWhatIsNotARecord) {
  RunReport parsed;
  bool complete = false;
  std::string error;
  EXPECT_FALSE(reportFromJson(Json::parse("{\"tool\": \"other\", \"schema\": 2}"), &parsed, &complete,
                              &error));
  EXPECT_NE(error.find("not a flashccl perf record"), std::string::npos) << error;
  Json missing = reportToJson(sampleReport());
  missing["settings"].erase("pairs");
  EXPECT_FALSE(reportFromJson(missing, &parsed, &complete, &error));
  EXPECT_NE(error.find("pairs"), std::string::npos) << error;
  const std::string path = testing::TempDir() + "/not-json.json";
  std::ofstream(path) << "hello";
  EXPECT_FALSE(readReportFile(path, &parsed, &complete, &error));
  EXPECT_NE(error.find("is not JSON"), std::string::npos) << error;
  EXPECT_FALSE(readReportFile("/nonexistent-dir/x.json", &parsed, &complete, &error));
}

// bench/results/ ships records of schema 1 (no "schema" field, "all_reduce", fewer settings):
// every perf record there reads, with its results, and reads back as what the run did.
TEST(JsonRecord, ReadsEveryShippedRecordOfSchemaOneAndTwo) {
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FLASHCCL_SOURCE_DIR "/bench/results")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const Json j = Json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("tool", "") != "flashccl perf") continue;
    RunReport parsed;
    bool complete = false;
    std::string error;
    ASSERT_TRUE(readReportFile(entry.path().string(), &parsed, &complete, &error)) << entry.path() << ": " << error;
    const int schema = reportSchema(j);
    EXPECT_TRUE(schema == 1 || schema == kReportSchemaVersion) << entry.path();
    EXPECT_TRUE(complete);
    EXPECT_EQ(parsed.results.size(), j["results"].size()) << entry.path();
    EXPECT_EQ(parsed.info.machine, j["machine"]) << entry.path();
    EXPECT_EQ(collectiveName(parsed.results.front().collective), std::string("allreduce")) << entry.path();
    // Written again, it is a schema-2 record that reads back the same.
    const Json again = reportToJson(parsed);
    EXPECT_EQ(again["schema"], kReportSchemaVersion);
    RunReport reread;
    ASSERT_TRUE(reportFromJson(again, &reread, &complete, &error)) << error;
    EXPECT_EQ(reportToJson(reread), again);
    ++read;
  }
  EXPECT_GE(read, 5) << "the 2026-11-30 perf records";
}

TEST(JsonRecord, NamesTheSchemaItCannotRead) {
  Json future = reportToJson(sampleReport());
  future["schema"] = 9;
  RunReport parsed;
  bool complete = false;
  std::string error;
  EXPECT_FALSE(reportFromJson(future, &parsed, &complete, &error));
  EXPECT_EQ(error, "a flashccl perf record of schema 9; this flashccl reads schemas 1 and 2");
  Json old = reportToJson(sampleReport());
  old.erase("schema");
  EXPECT_EQ(reportSchema(old), 1);
  // Schema 2 keeps every field required: schema 1's leniency is for schema 1 only.
  Json partial = reportToJson(sampleReport());
  partial.erase("flashccl_commit");
  EXPECT_FALSE(reportFromJson(partial, &parsed, &complete, &error));
  EXPECT_NE(error.find("flashccl_commit"), std::string::npos) << error;
}

TEST(MarkdownFormat, CarriesTheRequiredFactsAndTables) {
  const std::string md = formatMarkdown(sampleReport());
  EXPECT_EQ(md.substr(0, 36), "# flashccl perf: flashccl vs NCCL\n\n|");
  for (const char* needle :
       {"| date | 2026-12-01 10:00:00 UTC |", "| machine | vm: 2 x NVIDIA H200 |",
        "| NCCL version | 2.28.9 (/usr/lib/libnccl.so.2) |", "| commit | ae5c6a3-dirty |",
        "| set by perf for both libraries | NCCL_NVLS_ENABLE=0 |",
        "| command | `flashccl perf -b 8 -e 16 --coll allreduce,allgather` |", "## allreduce\n", "## allgather\n",
        "| size | count | type | redop | place | NCCL time (us) | NCCL busbw (GB/s) | NCCL spread (%) | "
        "flashccl time (us) | flashccl busbw (GB/s) | flashccl spread (%) | speedup | #wrong | algorithm |",
        "| 8 B | 2 | float | sum | out | 10.00 | 0.00 | 20.0 | 5.00 | 0.00 | 20.0 | 2.00 | 0 | oneshot |",
        "| 16 B | 4 | float | none | out | 9.00 | 0.00 | 22.2 | 6.00 | 0.00 | 16.7 | 1.50 | 2 | allgather_direct |",
        "- rank 1: vm device 1 [0000:00:07.0] NVIDIA H200, pid 629"}) {
    EXPECT_NE(md.find(needle), std::string::npos) << needle << "\n---\n" << md;
  }
}

TEST(ReportSinks, JsonFileSinkLeavesAReadableRecordAfterEveryResult) {
  const RunReport report = sampleReport();
  const std::string path = testing::TempDir() + "/sink.json";
  JsonFileSink sink(path);
  sink.begin(report.info);
  RunReport parsed;
  bool complete = true;
  std::string error;
  for (size_t i = 0; i < report.results.size(); ++i) {
    sink.add(report.results[i]);
    ASSERT_TRUE(readReportFile(path, &parsed, &complete, &error)) << error;
    EXPECT_FALSE(complete);
    EXPECT_EQ(parsed.results.size(), i + 1);
  }
  sink.finish(report);
  ASSERT_TRUE(readReportFile(path, &parsed, &complete, &error)) << error;
  EXPECT_TRUE(complete);
  JsonFileSink unwritable("/nonexistent-dir/x.json");
  EXPECT_THROW(unwritable.begin(report.info), std::runtime_error);
}

}  // namespace
}  // namespace perf
}  // namespace flashccl
