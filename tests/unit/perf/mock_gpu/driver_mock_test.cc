// flashccl perf end to end on a CPU mock of CUDA, NCCL and flashccl (mock_gpu.h): the runners, the
// rank driver's check and timing sequence (NCCL and flashccl blocks interleaved, medians and spread
// over the pairs), graph capture and replay, the exit statuses, and that a wrong flashccl result is
// caught, counted and reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mock_gpu.h"
#include "run_environment.h"
#include "subcommands.h"

namespace {

struct Outcome {
  int status;
  std::string out;
  std::string err;
};

Outcome runPerf(std::vector<std::string> args) {
  args.insert(args.begin(), "perf");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int status = flashccl::perfMain(static_cast<int>(args.size()), argv.data());
  Outcome outcome{status, testing::internal::GetCapturedStdout(),
                  testing::internal::GetCapturedStderr()};
  return outcome;
}

class PerfMock : public testing::Test {
 protected:
  void SetUp() override {
    mockgpu::setDeviceCount(2);
    mockgpu::setFlashcclFault(mockgpu::Fault::kNone);
    mockgpu::setFlashcclAlgorithmName("mock_oneshot");
    mockgpu::setDelays(0, 0);
  }
};

std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

int countOf(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The out-of-place #wrong column of every table row (nccl-tests' 9th column: size count type redop
// root time algbw busbw #wrong).
std::vector<std::string> wrongColumn(const std::string& out) {
  std::vector<std::string> column;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string field; fields >> field;) f.push_back(field);
    if (f.size() > 8) column.push_back(f[8]);
  }
  return column;
}

// Rows of one table end with the algorithm; the row of a size holds both placements.
const char* const kRowEnd = "  mock_oneshot\n";

TEST_F(PerfMock, ThreadsModeAllCollectivesBothPlacementsOneRowPerSize) {
  const long long ncclBefore = mockgpu::ncclCollectivesRun();
  const long long flashBefore = mockgpu::flashcclCollectivesRun();
  const Outcome r = runPerf({"-b", "8", "-e", "1K", "-f", "4", "-n", "3", "-w", "1", "--pairs", "3"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# nRanks 2: 2 threads x 1 GPU each (threads mode)"), std::string::npos);
  EXPECT_NE(r.out.find("#  Rank  1 Pid"), std::string::npos) << "rank 1's device, gathered";
  EXPECT_NE(r.out.find("Mock GPU"), std::string::npos);
  EXPECT_NE(r.out.find("# NCCL version 2.28.9 (/mock/libnccl.so.2)"), std::string::npos);
  EXPECT_NE(r.out.find("# flashccl version 0.0.0-mock, commit "), std::string::npos);
  EXPECT_NE(r.out.find("# set by perf for both libraries: "), std::string::npos);
  for (const char* coll : {"# allreduce on 2 ranks", "# allgather on 2 ranks", "# reducescatter on 2 ranks"})
    EXPECT_EQ(countOf(r.out, coll), 1) << coll;
  // 4 sizes (8, 32, 128, 512: the next step passes -e) x 3 collectives, out- and in-place per row.
  EXPECT_EQ(countOf(r.out, kRowEnd), 12) << r.out;
  EXPECT_NE(r.out.find("\n         512          128     float    sum    -1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# Out of bounds values : 0 OK"), std::string::npos);
  EXPECT_NE(r.out.find("# #wrong total: 0 in 24 results: flashccl matches NCCL everywhere"), std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;
  // Both libraries ran every case: per case and rank, 1 checked call plus 3 pairs x (1 + 3) calls.
  EXPECT_EQ(mockgpu::flashcclCollectivesRun() - flashBefore, 24 * 2 * (1 + 3 * 4));
  EXPECT_GE(mockgpu::ncclCollectivesRun() - ncclBefore, 24 * 2 * (1 + 3 * 4));
}

TEST_F(PerfMock, BlocksAlternateWhichLibraryGoesFirst) {
  // -b 64 float: 16 elements, measured. Check (NCCL, then flashccl), then pairs whose order flips.
  mockgpu::setDelays(0, 0);
  Outcome r = runPerf({"-b", "64", "-e", "64", "--coll", "allreduce", "--placement", "out", "-n", "1", "-w", "0",
                       "--pairs", "4"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(mockgpu::measuredSequence(), "NF" "NF" "FN" "NF" "FN");
  // -m 2: each iteration is two operations in one group; -w 1 adds an iteration before each block.
  mockgpu::setDelays(0, 0);
  r = runPerf({"-b", "64", "-e", "64", "--coll", "allreduce", "--placement", "out", "-n", "1", "-w", "1", "-m", "2",
               "--pairs", "2"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(mockgpu::measuredSequence(), "NF" "NNNN" "FFFF" "FFFF" "NNNN");
  // -c 0: no check calls; -N 2: the sweep twice.
  mockgpu::setDelays(0, 0);
  r = runPerf({"-b", "64", "-e", "64", "--coll", "allreduce", "--placement", "out", "-n", "1", "-w", "0", "-c", "0",
               "-N", "2", "--pairs", "1"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(mockgpu::measuredSequence(), "NF" "NF");
  EXPECT_EQ(countOf(r.out, kRowEnd), 2) << r.out;
}

TEST_F(PerfMock, MediansOverPairsIgnoreAnOutlierAndTheSpreadShowsIt) {
  // NCCL 4 ms, flashccl 2 ms per operation; the 4th NCCL operation on rank 0 (one timed block: the
  // first NCCL call is the check) takes 100 ms more. The mock's delays are host sleeps, which a
  // loaded machine stretches by milliseconds: the bounds tell a median (about 4 ms) from a mean
  // (about 23 ms) with room for that, rather than timing the sleeps.
  mockgpu::setDelays(4000, 2000, 4, 100000);
  const std::string json = testing::TempDir() + "/spread.json";
  const Outcome r = runPerf({"-b", "64", "-e", "64", "--coll", "allreduce", "--placement", "out", "-n", "1", "-w",
                             "0", "--pairs", "5", "-J", json});
  mockgpu::setDelays(0, 0);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const nlohmann::json record = nlohmann::json::parse(slurp(json));
  const nlohmann::json& result = record["results"][0];
  const double nccl = result["nccl"]["time_us"], flash = result["flashccl"]["time_us"];
  EXPECT_GE(nccl, 4000.0);
  EXPECT_LT(nccl, 12000.0) << "the median is not pulled up by the outlier (the mean is 23 ms)";
  EXPECT_GE(flash, 2000.0);
  EXPECT_LT(flash, 6000.0);
  EXPECT_GE(result["nccl"]["spread"]["max_us"].get<double>(), 104000.0) << "the outlier is in the spread";
  const double ncclSpread = result["nccl"]["spread_percent"], flashSpread = result["flashccl"]["spread_percent"];
  EXPECT_GT(ncclSpread, 1000.0);
  EXPECT_LT(flashSpread, ncclSpread / 3) << "the outlier shows in NCCL's spread, not in flashccl's";
  EXPECT_GT(result["speedup"].get<double>(), 1.2) << "a ratio of medians, near 2";
  EXPECT_LT(result["speedup"].get<double>(), 4.0) << "a ratio of medians, near 2 (of means: 11.6)";
  EXPECT_EQ(result["nccl"]["samples_us"].size(), 5u);
  EXPECT_GE(result["speedup_max"].get<double>(), 20.0) << "the outlier's pair ratio";
}

TEST_F(PerfMock, GpusPerThreadAndGroupedModesEveryTypeAndOp) {
  Outcome r = runPerf({"--grouped", "-b", "64", "-e", "64", "-d", "all", "-o", "all", "-n", "1", "-w", "0",
                       "--pairs", "1"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 thread x 2 GPUs each (grouped mode)"), std::string::npos);
  // allreduce and reducescatter: 12 types x 5 ops; allgather: 12 types.
  EXPECT_EQ(countOf(r.out, kRowEnd), 60 + 60 + 12) << r.out;
  EXPECT_NE(r.out.find("   f8e5m2    avg"), std::string::npos);
  EXPECT_NE(r.out.find("#wrong total: 0 in 264 results"), std::string::npos);
  r = runPerf({"-g", "2", "-b", "64", "-e", "64", "-n", "1", "-w", "0", "--pairs", "1"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 thread x 2 GPUs each (threads x gpus mode)"), std::string::npos);
}

TEST_F(PerfMock, ThreadsTimesGpusOnFourGpus) {
  mockgpu::setDeviceCount(4);
  const Outcome r = runPerf({"-t", "2", "-g", "2", "-b", "32", "-e", "512", "-f", "16", "-n", "2", "-w", "1",
                             "--pairs", "2", "-d", "bfloat16,int64", "-o", "sum,prod"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# nRanks 4: 2 threads x 2 GPUs each (threads x gpus mode)"), std::string::npos);
  EXPECT_NE(r.out.find("#  Rank  3 Pid"), std::string::npos);
}

TEST_F(PerfMock, CudaGraphModeReplaysTheCapturedIterationsAndChecksAReplay) {
  const long long before = mockgpu::graphLaunches();
  const Outcome r = runPerf({"-G", "3", "-b", "32", "-e", "32", "-n", "2", "-w", "1", "--pairs", "2"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("CUDA graph of 2 iterations, 3 replays"), std::string::npos);
  // Per case and rank: the check replays a graph twice; each of 2 pairs x 2 sides replays 3 times.
  EXPECT_EQ(mockgpu::graphLaunches() - before, 6 * 2 * (2 + 2 * 2 * 3));
}

TEST_F(PerfMock, AWrongValueIsCountedNamedAndFailsTheRun) {
  mockgpu::setFlashcclFault(mockgpu::Fault::kFlipFirstElementOnRank1);
  const Outcome r = runPerf({"-b", "8", "-e", "32", "-n", "1", "-w", "0", "--pairs", "1", "--placement", "out",
                             "--coll", "allreduce,allgather"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  // Each allreduce result: 1 element wrong on rank 1, and rank 1 differs from rank 0.
  EXPECT_EQ(wrongColumn(r.out), (std::vector<std::string>{"2", "2", "2", "0", "0", "0"})) << r.out;
  EXPECT_NE(r.out.find("# Out of bounds values : 6 FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#wrong total: 6 in 3 of 6 results: FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("WRONG: rank 1 (GPU 1), allreduce 8 B float sum out-of-place, eager: 1 of "
                       "2 elements differ from NCCL's result (bitwise); first at index 0: NCCL"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rank(s) 1 hold a different result from rank 0"), std::string::npos);
}

TEST_F(PerfMock, AnUnwrittenElementIsCaughtByThePoison) {
  mockgpu::setFlashcclFault(mockgpu::Fault::kSkipLastElementOnRank0);
  const Outcome r = runPerf({"-b", "16", "-e", "16", "-n", "1", "-w", "0", "--pairs", "1", "--coll", "allreduce",
                             "-d", "int32"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("first at index 3: NCCL"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("flashccl -1 (0xffffffff)"), std::string::npos) << r.err;
}

TEST_F(PerfMock, ToleranceAcceptsRoundingButRanksMustAgree) {
  // 3 ranks, float: the last-bit difference is within tolerance against NCCL, but rank 1 no longer
  // holds the same array as rank 0, which the hash comparison catches.
  mockgpu::setDeviceCount(3);
  mockgpu::setFlashcclFault(mockgpu::Fault::kDifferentLastBitOnRank1);
  const Outcome r = runPerf({"-t", "3", "-b", "12", "-e", "12", "-n", "1", "-w", "0", "--pairs", "1",
                             "--placement", "out", "--coll", "allreduce"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(r.err.find("elements differ"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank(s) 1 hold a different result from rank 0"), std::string::npos);
  EXPECT_NE(r.out.find("# Out of bounds values : 1 FAILED"), std::string::npos) << r.out;
}

TEST_F(PerfMock, CheckZeroShowsNotApplicable) {
  mockgpu::setFlashcclFault(mockgpu::Fault::kFlipFirstElementOnRank1);
  const Outcome r = runPerf({"-c", "0", "-b", "8", "-e", "8", "-n", "1", "-w", "0", "--pairs", "1", "--coll",
                             "allreduce"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(countOf(r.out, "    N/A "), 2) << r.out;
  EXPECT_NE(r.out.find("# results not checked (-c 0)"), std::string::npos);
}

TEST_F(PerfMock, FallbackIsReportedAsNccl) {
  mockgpu::setFlashcclAlgorithmName("NCCL");
  const Outcome r = runPerf({"-b", "8", "-e", "8", "-n", "1", "-w", "0", "--pairs", "1", "--coll", "reducescatter"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("  NCCL\n"), std::string::npos) << r.out;
}

TEST_F(PerfMock, DisabledFlashcclIsReportedAsSuch) {
  mockgpu::setFlashcclAlgorithmName("");
  const Outcome r = runPerf({"-b", "8", "-e", "8", "-n", "1", "-w", "0", "--pairs", "1", "--coll", "allgather"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("  NCCL (flashccl disabled)\n"), std::string::npos) << r.out;
}

TEST_F(PerfMock, WritesTheJsonRecordAndMarkdown) {
  const std::string dir = testing::TempDir();
  const Outcome r = runPerf({"--quick", "-e", "4K", "-J", dir + "/mock.json", "--markdown", dir + "/mock.md",
                             "--machine", "mockbox"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# wrote JSON: " + dir + "/mock.json"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(slurp(dir + "/mock.json"));
  EXPECT_EQ(json["machine"], "mockbox");
  EXPECT_EQ(json["complete"], true);
  EXPECT_EQ(json["wrong_total"], 0);
  EXPECT_EQ(json["nccl_version"], "2.28.9");
  EXPECT_NE(json["flashccl_commit"], "");
  EXPECT_EQ(json["command"].get<std::string>().rfind("flashccl perf --quick -e 4K -J", 0), 0u) << json["command"];
  const std::string md = slurp(dir + "/mock.md");
  EXPECT_NE(md.find("| machine | mockbox |"), std::string::npos);
  EXPECT_NE(md.find("| commit | "), std::string::npos);
  EXPECT_NE(md.find("## reducescatter"), std::string::npos);
}

TEST_F(PerfMock, SaysWhatItSetForNccl) {
  unsetenv("NCCL_NVLS_ENABLE");
  const std::string json = testing::TempDir() + "/env.json";
  const Outcome r = runPerf({"-b", "8", "-e", "8", "-n", "1", "-w", "0", "--pairs", "1", "--coll", "allreduce", "-J",
                             json});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# set by perf for both libraries: NCCL_NVLS_ENABLE=0\n"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(slurp(json))["environment_set_by_perf"]["NCCL_NVLS_ENABLE"], "0");
}

TEST_F(PerfMock, ProcessesModeRunsChildrenAndCollectsRankZerosRecord) {
  // One process: the mock's collectives do not cross processes, but the parent's whole path does
  // run: unique id, re-executing this binary with the hidden options, waiting, the JSON hand-over.
  const std::string dir = testing::TempDir();
  const Outcome r = runPerf({"--processes", "1", "-b", "8", "-e", "64", "-f", "8", "-n", "2", "-w", "1", "--pairs",
                             "2", "--coll", "allreduce,reducescatter", "-J", dir + "/procs.json", "--markdown",
                             dir + "/procs.md"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# nRanks 1: 1 process x 1 GPU each (processes mode)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# command: flashccl perf --processes 1 -b 8"), std::string::npos)
      << "children report the command as typed, without the hidden options";
  EXPECT_EQ(r.out.find("--child-rank"), std::string::npos);
  EXPECT_NE(r.out.find("# wrote JSON: " + dir + "/procs.json"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(slurp(dir + "/procs.json"));
  EXPECT_EQ(json["mode"], "processes");
  EXPECT_EQ(json["results"].size(), 8u);  // 2 sizes x 2 collectives x 2 placements
  EXPECT_NE(slurp(dir + "/procs.md").find("## reducescatter"), std::string::npos);
}

TEST_F(PerfMock, LaunchedModeIsOneRankOfALaunchersJob) {
  // World size 1: the mock's collectives do not cross processes, but the launched path runs whole:
  // the launcher's variables, the rendezvous address for NCCL, the GPU of the local rank, rank 0's
  // table and record.
  unsetenv("NCCL_COMM_ID");
  setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("MASTER_PORT", "29999", 1);
  const std::string json = testing::TempDir() + "/launched.json";
  Outcome r = runPerf({"--launched", "-b", "8", "-e", "8", "-n", "1", "-w", "0", "--pairs", "1", "--coll",
                       "allreduce", "-J", json});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 process x 1 GPU each (launched mode)"), std::string::npos) << r.out;
  const nlohmann::json record = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(record["mode"], "launched");
  EXPECT_EQ(record["devices"][0]["device"], 1) << "the local rank's GPU";
  EXPECT_EQ(record["environment_set_by_perf"]["NCCL_COMM_ID"], "127.0.0.1:29999");
  unsetenv("NCCL_COMM_ID");
  unsetenv("MASTER_ADDR");
  r = runPerf({"--launched", "-b", "8", "-e", "8", "--coll", "allreduce"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no rendezvous for the ranks"), std::string::npos) << r.err;
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "MASTER_PORT"})
    unsetenv(name);
  r = runPerf({"--launched", "-b", "8", "-e", "8", "--coll", "allreduce"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("flashccl perf: --launched: no launcher's variables are set"), std::string::npos) << r.err;
}

TEST_F(PerfMock, ProcessesModeReportsAFailedRank) {
  setenv("MOCK_FAIL_COMM_INIT", "1", 1);
  const Outcome r = runPerf({"--processes", "1", "-b", "8", "-e", "8", "--coll", "allreduce"});
  unsetenv("MOCK_FAIL_COMM_INIT");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("creating the communicator of rank 0 (GPU 0) through flashccl failed: NCCL "
                       "error 2"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rank 0 (pid "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("failed with exit status 3"), std::string::npos) << r.err;
}

TEST_F(PerfMock, AHangIsNamedByTheWatchdog) {
  setenv("MOCK_HANG", "1", 1);
  const Outcome r = runPerf({"--processes", "1", "-b", "8", "-e", "8", "--coll", "allgather", "-T", "1"});
  unsetenv("MOCK_HANG");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no progress for 1 s: a collective is probably hung"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 0 ("), std::string::npos);
  EXPECT_NE(r.err.find("allgather 8 B float out-of-place: check, flashccl's call"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("failed with exit status 3"), std::string::npos) << r.err;
}

TEST_F(PerfMock, UsageErrorsExitTwoWithOneLine) {
  Outcome r = runPerf({"-t", "3"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "flashccl perf: asked for 3 GPUs (-t 3) but only 2 are visible (cudaGetDeviceCount); lower "
                   "-t/-g/--processes or check CUDA_VISIBLE_DEVICES (flashccl perf --help)\n");
  r = runPerf({"-b", "4", "-e", "4", "--coll", "allgather"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("size 4 B cannot be split evenly over 2 ranks for allgather"), std::string::npos) << r.err;
  r = runPerf({"-d", "float128"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  mockgpu::setDeviceCount(0);
  r = runPerf({});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "flashccl perf needs NVIDIA GPUs; none found (cudaGetDeviceCount: "
                   "cudaErrorNoDevice: mock CUDA error)\n");
  r = runPerf({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Usage: flashccl perf"), std::string::npos);
}

}  // namespace

namespace flashccl {
namespace perf {
namespace {

// Records count GPUs, not ranks: two ranks sharing one GPU are not a two-GPU machine.
TEST(MachineDescription, CountsGpusNotRanks) {
  DeviceInfo a{0, 0, 1, "vm", "0000:00:06.0", "NVIDIA H200"}, b{1, 0, 2, "vm", "0000:00:07.0", "NVIDIA H200"};
  EXPECT_EQ(machineDescription("vm", 2, {a, b}), "vm: 2 x NVIDIA H200");
  DeviceInfo shared = b;
  shared.busId = a.busId;
  EXPECT_EQ(machineDescription("vm", 2, {a, shared}), "vm: 1 x NVIDIA H200 (2 ranks)");
  DeviceInfo otherHost = shared;
  otherHost.host = "vm2";
  EXPECT_EQ(machineDescription("vm", 2, {a, otherHost}), "vm: 2 x NVIDIA H200");
  EXPECT_EQ(machineDescription("vm", 4, {a}), "vm: 4 ranks on NVIDIA H200");
}

}  // namespace
}  // namespace perf
}  // namespace flashccl
