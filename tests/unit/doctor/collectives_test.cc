// The collectives family: the perf command line doctor builds, perf's JSON as doctor reads it
// (written by perf's own formatter when perf is built: the two must keep agreeing), and the
// busbw verdicts.
#include <gtest/gtest.h>

#include "collective_checks.h"
#include "perf_interface.h"

#ifdef DOCTOR_HAVE_PERF_LOGIC
#include <sstream>

#include "perf_options.h"
#include "report_json.h"
#endif

namespace flashccl {
namespace doctor {
namespace {

TEST(DoctorPerfInterface, OneCollectivePerRunWithItsJson) {
  PerfRunSettings settings;
  settings.collective = "allgather";
  const std::vector<std::string> args = perfArguments(settings, "/tmp/x/allgather.json");
  const std::vector<std::string> expected = {"perf", "--coll", "allgather", "--placement", "out",
                                             "-b", "1048576", "-e", "268435456",
                                             "-f", "16", "-n", "20", "-w", "5", "--pairs", "5",
                                             "--json", "/tmp/x/allgather.json"};
  EXPECT_EQ(args, expected);
}

#ifdef DOCTOR_HAVE_PERF_LOGIC
// The command line doctor builds is one perf's own parser accepts, and means what doctor meant.
TEST(DoctorPerfInterface, PerfsParserAcceptsTheCommandLine) {
  PerfRunSettings settings;
  settings.collective = "reducescatter";
  const std::vector<std::string> args = perfArguments(settings, "/tmp/x/rs.json");
  std::ostringstream out, err;
  const perf::ParseOutcome parsed =
      perf::parsePerfOptions(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  ASSERT_EQ(parsed.status, -1) << err.str();
  ASSERT_EQ(parsed.options.collectives.size(), 1u);
  EXPECT_EQ(parsed.options.collectives[0], perf::Collective::kReduceScatter);
  EXPECT_EQ(parsed.options.sizes.minBytes, settings.minBytes);
  EXPECT_EQ(parsed.options.sizes.maxBytes, settings.maxBytes);
  EXPECT_EQ(parsed.options.sizes.stepFactor, size_t(settings.stepFactor));
  EXPECT_EQ(parsed.options.iters, settings.iters);
  EXPECT_EQ(parsed.options.pairs, settings.pairs);
  EXPECT_EQ(parsed.options.jsonPath, "/tmp/x/rs.json");
  EXPECT_EQ(parsed.options.placements, std::vector<perf::Placement>{perf::Placement::kOutOfPlace});
}
#endif

TEST(DoctorPerfInterface, ReadsPerfsJson) {
  // The shape tools/perf/report_json.cc writes (two rows, one unchecked).
  const std::string json = R"({"tool": "flashccl perf", "flashccl_version": "0.1.0", "nccl_version": "2.28.3",
    "ranks": 2, "results": [
      {"collective": "all_reduce", "size_bytes": 268435456, "count": 67108864, "dtype": "float", "op": "sum",
       "in_place": false,
       "nccl": {"time_us": 898.960, "algbw_gbps": 298.610, "busbw_gbps": 298.610, "samples_us": [898.9]},
       "flashccl": {"time_us": 795.040, "algbw_gbps": 337.640, "busbw_gbps": 337.640, "samples_us": [795.0]},
       "speedup": 1.1307, "speedup_min": 1.1, "speedup_max": 1.2, "checked": true, "wrong": 0,
       "check_rule": "relative 1.0e-05", "algorithm": "allreduce_twoshot"},
      {"collective": "all_reduce", "size_bytes": 1048576, "count": 262144, "dtype": "float", "op": "sum",
       "in_place": false,
       "nccl": {"time_us": 14.23, "algbw_gbps": 73.69, "busbw_gbps": 73.69, "samples_us": []},
       "flashccl": {"time_us": 11.76, "algbw_gbps": null, "busbw_gbps": null, "samples_us": []},
       "speedup": 1.21, "speedup_min": 1.2, "speedup_max": 1.2, "checked": false, "wrong": null,
       "check_rule": "", "algorithm": "allreduce_oneshot"}],
    "wrong_total": 0})";
  PerfRun run;
  std::string error;
  ASSERT_TRUE(parsePerfJson(json, &run, &error)) << error;
  EXPECT_EQ(run.ranks, 2);
  EXPECT_EQ(run.ncclVersion, "2.28.3");
  ASSERT_EQ(run.results.size(), 2u);
  EXPECT_EQ(run.results[0].collective, "allreduce");
  EXPECT_EQ(run.results[0].bytes, size_t(256) << 20);
  EXPECT_DOUBLE_EQ(run.results[0].ncclBusbw, 298.61);
  EXPECT_DOUBLE_EQ(run.results[0].flashcclBusbw, 337.64);
  EXPECT_TRUE(run.results[0].checked);
  EXPECT_EQ(run.results[0].algorithm, "allreduce_twoshot");
  EXPECT_FALSE(run.results[1].checked);
  EXPECT_EQ(run.results[1].flashcclBusbw, 0.0);

  EXPECT_FALSE(parsePerfJson("{\"ranks\": 2}", &run, &error));
  EXPECT_NE(error.find("perf JSON"), std::string::npos);
  EXPECT_FALSE(parsePerfJson("garbage", &run, &error));
}

#ifdef DOCTOR_HAVE_PERF_LOGIC
// perf's writer and doctor's reader, held together: a change to perf's JSON that doctor cannot
// read fails here, not on a GPU machine.
TEST(DoctorPerfInterface, ReadsWhatPerfsFormatterWrites) {
  perf::RunReport report;
  report.info.ncclVersion = "2.28.9";
  report.info.flashcclVersion = "0.1.0";
  report.info.layout.threads = 4;
  perf::SizeResult row;
  row.collective = perf::Collective::kReduceScatter;
  row.bytes = size_t(64) << 20;
  row.count = row.bytes / 4;
  row.timing.nccl.median = 250.0;
  row.timing.flashccl.median = 200.0;
  row.timing.speedup = 1.25;
  row.checked = true;
  row.wrong = 3;
  row.algorithm = "reducescatter_direct";
  report.results.push_back(row);

  PerfRun run;
  std::string error;
  ASSERT_TRUE(parsePerfJson(perf::reportToJson(report).dump(), &run, &error)) << error;
  EXPECT_EQ(run.ranks, 4);
  ASSERT_EQ(run.results.size(), 1u);
  const PerfMeasurement& m = run.results[0];
  EXPECT_EQ(m.collective, "reducescatter");
  EXPECT_EQ(m.bytes, row.bytes);
  // busbw = bytes / time x (n-1)/n for ReduceScatter: 67.1 MB / 250 us x 3/4.
  EXPECT_NEAR(m.ncclBusbw, 67108864.0 / 250e-6 / 1e9 * 0.75, 0.01);
  EXPECT_NEAR(m.flashcclBusbw, 67108864.0 / 200e-6 / 1e9 * 0.75, 0.01);
  EXPECT_EQ(m.wrong, 3u);
  EXPECT_EQ(m.algorithm, "reducescatter_direct");
}
#endif

PerfMeasurement measurement(const std::string& collective, size_t bytes, double nccl, double flashccl,
                            uint64_t wrong = 0) {
  PerfMeasurement m;
  m.collective = collective;
  m.bytes = bytes;
  m.ncclBusbw = nccl;
  m.flashcclBusbw = flashccl;
  m.checked = true;
  m.wrong = wrong;
  m.algorithm = "x";
  return m;
}

Expectations twoGpuFloors() {
  Expectations expect;
  std::string error;
  EXPECT_TRUE(parseExpectationJson(
      R"({"busbw": [{"collective": "allreduce", "ranks": 2, "bytes": "256M", "min_gbps": 223}]})", "t",
      &expect, &error));
  return expect;
}

TEST(DoctorCollectives, BusbwAgainstTheFloorAndAgainstNccl) {
  CollectiveOutcome outcome;
  outcome.collective = "allreduce";
  outcome.run.ranks = 2;
  const size_t big = size_t(256) << 20;
  outcome.run.results = {measurement("allreduce", big, 298.6, 337.6),   // healthy
                         measurement("allreduce", 1 << 20, 73.7, 60.0)};  // flashccl slower, no floor
  auto checks = judgeCollectives({outcome}, twoGpuFloors());
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].verdict, Verdict::kPass);
  EXPECT_EQ(checks[0].subject, "allreduce 256M, 2 ranks");
  EXPECT_EQ(checks[0].expected, ">= 223.0 GB/s (t)");
  EXPECT_EQ(checks[0].measured, "busbw NCCL 298.6 GB/s, flashccl 337.6 GB/s (x); #wrong 0");
  EXPECT_EQ(checks[1].verdict, Verdict::kWarn);
  EXPECT_NE(checks[1].expected.find("no floor"), std::string::npos);

  outcome.run.results = {measurement("allreduce", big, 150.0, 160.0)};  // NCCL itself is slow
  EXPECT_EQ(judgeCollectives({outcome}, twoGpuFloors())[0].verdict, Verdict::kFail);
  outcome.run.results = {measurement("allreduce", big, 298.6, 200.0)};  // flashccl below the floor
  EXPECT_EQ(judgeCollectives({outcome}, twoGpuFloors())[0].verdict, Verdict::kFail);
  outcome.run.results = {measurement("allreduce", big, 298.6, 337.6, 5)};  // wrong results
  const CheckResult wrong = judgeCollectives({outcome}, twoGpuFloors())[0];
  EXPECT_EQ(wrong.verdict, Verdict::kFail);
  EXPECT_NE(wrong.why.find("differs from NCCL's in 5 elements"), std::string::npos);
}

TEST(DoctorCollectives, WhatPerfCannotRunIsSkippedAndWhatBrokeFails) {
  CollectiveOutcome unsupported;
  unsupported.collective = "alltoall";
  unsupported.status = CollectiveOutcome::Status::kUnsupported;
  unsupported.message = "flashccl perf: -c: unknown collective 'alltoall'";
  CollectiveOutcome failed;
  failed.collective = "allgather";
  failed.status = CollectiveOutcome::Status::kFailed;
  failed.message = "killed by signal 11";
  const auto checks = judgeCollectives({unsupported, failed}, Expectations());
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].verdict, Verdict::kSkip);
  EXPECT_NE(checks[0].why.find("unknown collective 'alltoall'"), std::string::npos);
  EXPECT_EQ(checks[1].verdict, Verdict::kFail);
}

TEST(DoctorCollectives, SizesReadTheWayTheyAreWritten) {
  EXPECT_EQ(sizeText(size_t(1) << 30), "1G");
  EXPECT_EQ(sizeText(size_t(256) << 20), "256M");
  EXPECT_EQ(sizeText(65536), "64K");
  EXPECT_EQ(sizeText(1000), "1000");
}

}  // namespace
}  // namespace doctor
}  // namespace flashccl
