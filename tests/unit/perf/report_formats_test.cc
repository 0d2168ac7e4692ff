// flashccl perf: the table, JSON, markdown and the --procs results file, against golden text.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "report_sink.h"
#include "result_file.h"
#include "result_format.h"

namespace flashccl {
namespace perf {
namespace {

RunInfo sampleInfo() {
  RunInfo info;
  info.flashcclVersion = "0.1.0";
  info.ncclVersion = "2.28.9";
  info.ncclLibrary = "/usr/lib/libnccl.so.2";
  info.date = "2026-12-01 10:00:00 UTC";
  info.host = "vm";
  info.machine = "vm: 2 x NVIDIA H200";
  info.command = "flashccl perf -b 8 -e 16 -c all_reduce,all_gather";
  info.layout.threads = 2;
  info.devices = {{0, 0, 629, "vm", "0000:00:06.0", "NVIDIA H200"},
                  {1, 1, 629, "vm", "0000:00:07.0", "NVIDIA H200"}};
  info.environment = {{"FLASHCCL_DISABLE", true, "1"}, {"NCCL_NVLS_ENABLE", true, "0"},
                      {"NCCL_ALGO", false, ""}};
  info.minBytes = 8;
  info.maxBytes = 16;
  info.stepFactor = 2;
  info.iters = 20;
  info.warmupIters = 5;
  info.pairs = 3;
  info.graphOps = 0;
  info.check = true;
  info.seed = 1;
  return info;
}

SizeResult sampleResult(Collective coll, size_t bytes, double ncclUs, double flashUs,
                        const std::string& algorithm, uint64_t wrong = 0) {
  SizeResult r;
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
                    sampleResult(Collective::kAllReduce, 16, 11.0, 11.0, "NCCL"),
                    sampleResult(Collective::kAllGather, 16, 9.0, 6.0, "allgather_direct", 2)};
  return report;
}

TEST(TableFormat, HeaderAndRowsGolden) {
  const RunInfo info = sampleInfo();
  EXPECT_EQ(formatTableHeader(Collective::kAllReduce, info),
            "# all_reduce on 2 ranks, eager: time per operation (us, median of 3 pairs), algbw "
            "and busbw in GB/s; speedup = median over pairs of NCCL time / flashccl time\n"
            "#     size(B)        count      type  redop place |  NCCL time(us)    algbw    busbw |"
            "  flashccl time(us)    algbw    busbw | speedup  #wrong  algorithm\n");
  const SizeResult r = sampleResult(Collective::kAllReduce, 1048576, 15.57, 10.0, "oneshot");
  EXPECT_EQ(formatRow(r, 2),
            "      1048576       262144     float    sum   out |          15.57    67.35    67.35 |"
            "              10.00   104.86   104.86 |    1.56       0  oneshot\n");
  SizeResult unchecked = r;
  unchecked.checked = false;
  EXPECT_NE(formatRow(unchecked, 2).find("    1.56     N/A  oneshot"), std::string::npos);
}

TEST(TableFormat, RunHeaderCarriesVersionsDevicesAndEnvironment) {
  const std::string header = formatRunHeader(sampleInfo());
  EXPECT_EQ(header,
            "# flashccl perf 0.1.0: flashccl vs NCCL, side by side on the same communicators\n"
            "# nRanks 2: 2 threads x 1 GPU each (threads mode)\n"
            "# minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 pairs: 3 graph: 0 "
            "check: 1 seed: 1\n"
            "#\n"
            "# Using devices\n"
            "#  Rank  0 Pid    629 on         vm device  0 [0000:00:06.0] NVIDIA H200\n"
            "#  Rank  1 Pid    629 on         vm device  1 [0000:00:07.0] NVIDIA H200\n"
            "# NCCL version 2.28.9 (/usr/lib/libnccl.so.2)\n"
            "# flashccl version 0.1.0\n"
            "# env: FLASHCCL_DISABLE=1 NCCL_NVLS_ENABLE=0 NCCL_ALGO=(unset)\n"
            "# command: flashccl perf -b 8 -e 16 -c all_reduce,all_gather\n"
            "#\n");
}

TEST(TableFormat, PrinterOpensOneTablePerCollectiveAndSummarizes) {
  const RunReport report = sampleReport();
  TablePrinter printer;
  std::string text = printer.begin(report.info);
  for (const SizeResult& r : report.results) text += printer.add(r);
  text += printer.finish(report);
  EXPECT_NE(text.find("# all_reduce on 2 ranks"), std::string::npos);
  EXPECT_NE(text.find("# all_gather on 2 ranks"), std::string::npos);
  EXPECT_LT(text.find("# all_reduce: avg busbw"), text.find("# all_gather on 2 ranks"));
  EXPECT_NE(text.find("# all_reduce: avg busbw NCCL 0.00 GB/s, flashccl 0.00 GB/s; speedup "
                      "geomean 1.41 (min 1.00, max 2.00); #wrong 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# #wrong total: 2 in 1 of 3 rows: FAILED"), std::string::npos) << text;
}

TEST(TableFormat, RunFooterVerdicts) {
  RunReport report = sampleReport();
  report.results[2].wrong = 0;
  EXPECT_EQ(formatRunFooter(report),
            "# #wrong total: 0 in 3 rows: flashccl matches NCCL everywhere\n");
  for (SizeResult& r : report.results) r.checked = false;
  EXPECT_EQ(formatRunFooter(report), "# results not checked (--no-check)\n");
}

TEST(JsonFormat, Golden) {
  RunReport report = sampleReport();
  report.results.resize(1);
  report.info.devices.resize(1);
  report.info.environment.resize(2);
  EXPECT_EQ(formatJson(report),
            "{\n"
            "  \"tool\": \"flashccl perf\",\n"
            "  \"flashccl_version\": \"0.1.0\",\n"
            "  \"nccl_version\": \"2.28.9\",\n"
            "  \"nccl_library\": \"/usr/lib/libnccl.so.2\",\n"
            "  \"date\": \"2026-12-01 10:00:00 UTC\",\n"
            "  \"host\": \"vm\",\n"
            "  \"machine\": \"vm: 2 x NVIDIA H200\",\n"
            "  \"command\": \"flashccl perf -b 8 -e 16 -c all_reduce,all_gather\",\n"
            "  \"ranks\": 2,\n"
            "  \"mode\": \"threads\",\n"
            "  \"processes\": 1,\n"
            "  \"threads\": 2,\n"
            "  \"gpus_per_thread\": 1,\n"
            "  \"devices\": [\n"
            "    {\"rank\": 0, \"device\": 0, \"pid\": 629, \"host\": \"vm\", \"bus_id\": "
            "\"0000:00:06.0\", \"name\": \"NVIDIA H200\"}\n"
            "  ],\n"
            "  \"environment\": {\"FLASHCCL_DISABLE\": \"1\", \"NCCL_NVLS_ENABLE\": \"0\"},\n"
            "  \"settings\": {\"min_bytes\": 8, \"max_bytes\": 16, \"step_factor\": 2, \"iters\": 20, "
            "\"warmup_iters\": 5, \"pairs\": 3, \"graph_ops\": 0, \"check\": true, \"seed\": 1},\n"
            "  \"results\": [\n"
            "    {\"collective\": \"all_reduce\", \"size_bytes\": 8, \"count\": 2, \"dtype\": "
            "\"float\", \"op\": \"sum\", \"in_place\": false,\n"
            "     \"nccl\": {\"time_us\": 10.000, \"algbw_gbps\": 0.001, \"busbw_gbps\": 0.001, "
            "\"samples_us\": [10.000, 11.000, 9.000]},\n"
            "     \"flashccl\": {\"time_us\": 5.000, \"algbw_gbps\": 0.002, \"busbw_gbps\": 0.002, "
            "\"samples_us\": [5.000, 5.500, 4.500]},\n"
            "     \"speedup\": 2.0000, \"speedup_min\": 2.0000, \"speedup_max\": 2.0000, "
            "\"checked\": true, \"wrong\": 0, \"check_rule\": \"bitwise\", \"algorithm\": "
            "\"oneshot\"}\n"
            "  ],\n"
            "  \"wrong_total\": 0\n"
            "}\n");
}

TEST(JsonFormat, EscapesAndNulls) {
  RunReport report = sampleReport();
  report.info.machine = "a \"quoted\"\tname\\";
  report.info.environment = {{"NCCL_ALGO", false, ""}};
  report.results[0].checked = false;
  report.results[0].timing.speedup = NAN;
  const std::string json = formatJson(report);
  EXPECT_NE(json.find("\"machine\": \"a \\\"quoted\\\"\\tname\\\\\""), std::string::npos);
  EXPECT_NE(json.find("\"environment\": {\"NCCL_ALGO\": null}"), std::string::npos);
  EXPECT_NE(json.find("\"speedup\": null"), std::string::npos);
  EXPECT_NE(json.find("\"wrong\": null"), std::string::npos);
}

TEST(MarkdownFormat, CarriesTheRequiredFactsAndTables) {
  const std::string md = formatMarkdown(sampleReport());
  EXPECT_EQ(md.substr(0, 36), "# flashccl perf: flashccl vs NCCL\n\n|");
  for (const char* needle :
       {"| date | 2026-12-01 10:00:00 UTC |", "| machine | vm: 2 x NVIDIA H200 |",
        "| NCCL version | 2.28.9 (/usr/lib/libnccl.so.2) |", "| flashccl version | 0.1.0 |",
        "| command | `flashccl perf -b 8 -e 16 -c all_reduce,all_gather` |",
        "| timing | eager; 20 operations per block after 5 warm-up, median of 3 NCCL/flashccl "
        "pairs |",
        "## all_reduce\n", "## all_gather\n",
        "| size | count | type | redop | place | NCCL time (us) | NCCL algbw (GB/s) | NCCL busbw "
        "(GB/s) | flashccl time (us) | flashccl algbw (GB/s) | flashccl busbw (GB/s) | speedup | "
        "#wrong | algorithm |",
        "| 8 B | 2 | float | sum | out | 10.00 | 0.00 | 0.00 | 5.00 | 0.00 | 0.00 | 2.00 | 0 | "
        "oneshot |",
        "| 16 B | 4 | float | none | out | 9.00 | 0.00 | 0.00 | 6.00 | 0.00 | 0.00 | 1.50 | 2 | "
        "allgather_direct |",
        "all_gather: avg busbw NCCL 0.00 GB/s", "- rank 1: vm device 1 [0000:00:07.0] NVIDIA H200",
        "#wrong total: 2 in 1 of 3 rows: FAILED"}) {
    EXPECT_NE(md.find(needle), std::string::npos) << needle << "\n---\n" << md;
  }
}

TEST(ResultFile, RoundTrip) {
  const RunReport original = sampleReport();
  std::string text = serializeRunInfo(original.info);
  for (const SizeResult& r : original.results) text += serializeResult(r);
  text += serializeEnd();
  RunReport parsed;
  bool complete = false;
  std::string error;
  ASSERT_TRUE(parseResultFile(text, &parsed, &complete, &error)) << error;
  EXPECT_TRUE(complete);
  // Everything the outputs use survives: compare the outputs themselves.
  EXPECT_EQ(formatJson(parsed), formatJson(original));
  EXPECT_EQ(formatMarkdown(parsed), formatMarkdown(original));
}

TEST(ResultFile, IncompleteAndMalformed) {
  const RunReport original = sampleReport();
  std::string text = serializeRunInfo(original.info) + serializeResult(original.results[0]);
  RunReport parsed;
  bool complete = true;
  std::string error;
  ASSERT_TRUE(parseResultFile(text, &parsed, &complete, &error)) << error;
  EXPECT_FALSE(complete);
  EXPECT_EQ(parsed.results.size(), 1u);
  EXPECT_FALSE(parseResultFile("hello\n", &parsed, &complete, &error));
  EXPECT_NE(error.find("not a flashccl perf results file"), std::string::npos);
  EXPECT_FALSE(parseResultFile(serializeRunInfo(original.info) + "result\tall_reduce\tx\n", &parsed,
                               &complete, &error));
  EXPECT_NE(error.find("line"), std::string::npos);
  EXPECT_FALSE(parseResultFile("", &parsed, &complete, &error));
}

TEST(ReportSinks, ResultFileSinkWritesWhatTheParserReads) {
  const RunReport original = sampleReport();
  const std::string path = ::testing::TempDir() + "/perf_results_test.txt";
  {
    ResultFileSink sink;
    std::string error;
    ASSERT_TRUE(sink.open(path, &error)) << error;
    sink.begin(original.info);
    for (const SizeResult& r : original.results) sink.add(r);
    sink.finish(original);
  }
  FILE* file = std::fopen(path.c_str(), "r");
  ASSERT_NE(file, nullptr);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, n);
  std::fclose(file);
  std::remove(path.c_str());
  RunReport parsed;
  bool complete = false;
  std::string error;
  ASSERT_TRUE(parseResultFile(text, &parsed, &complete, &error)) << error;
  EXPECT_TRUE(complete);
  EXPECT_EQ(parsed.results.size(), 3u);
  ResultFileSink unwritable;
  EXPECT_FALSE(unwritable.open("/nonexistent-dir/x", &error));
  EXPECT_NE(error.find("cannot write results file"), std::string::npos);
}

}  // namespace
}  // namespace perf
}  // namespace flashccl
