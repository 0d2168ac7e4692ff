// flashccl perf end to end on a CPU mock of CUDA, NCCL and flashccl (mock_gpu.h): the runners, the
// rank driver's check and timing sequence, graph capture and replay, the exit statuses, and that a
// wrong flashccl result is caught, counted and reported.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mock_gpu.h"
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

TEST_F(PerfMock, ThreadsModeAllCollectivesBothPlacements) {
  const long long ncclBefore = mockgpu::ncclCollectivesRun();
  const long long flashBefore = mockgpu::flashcclCollectivesRun();
  const Outcome r = runPerf({"-b", "8", "-e", "1K", "-f", "4", "-i", "both", "-n", "3", "-w", "1",
                             "--pairs", "3"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# nRanks 2: 2 threads x 1 GPU each (threads mode)"), std::string::npos);
  EXPECT_NE(r.out.find("#  Rank  1 Pid"), std::string::npos) << "rank 1's device, gathered";
  EXPECT_NE(r.out.find("Mock GPU"), std::string::npos);
  EXPECT_NE(r.out.find("# NCCL version 2.28.9 (/mock/libnccl.so.2)"), std::string::npos);
  EXPECT_NE(r.out.find("# flashccl version 0.0.0-mock"), std::string::npos);
  for (const char* coll : {"# all_reduce on 2 ranks", "# all_gather on 2 ranks",
                           "# reduce_scatter on 2 ranks"})
    EXPECT_EQ(countOf(r.out, coll), 1) << coll;
  // 4 sizes (8, 32, 128, 512: the next step passes -e) x 2 placements x 3 collectives.
  EXPECT_EQ(countOf(r.out, "  mock_oneshot\n"), 24) << r.out;
  EXPECT_NE(r.out.find("          512          128     float    sum    in |"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# #wrong total: 0 in 24 rows: flashccl matches NCCL everywhere"),
            std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;
  // Both libraries ran every case: per case and rank, 1 checked call plus 3 pairs x (1 + 3) calls.
  EXPECT_EQ(mockgpu::flashcclCollectivesRun() - flashBefore, 24 * 2 * (1 + 3 * 4));
  EXPECT_GE(mockgpu::ncclCollectivesRun() - ncclBefore, 24 * 2 * (1 + 3 * 4));
}

TEST_F(PerfMock, GroupedModeEveryTypeAndOp) {
  const Outcome r = runPerf({"-g", "2", "-b", "64", "-e", "64", "-d", "all", "-o", "all", "-i",
                             "both", "-n", "1", "-w", "0", "--pairs", "1"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 thread x 2 GPUs each (grouped mode)"), std::string::npos);
  // all_reduce and reduce_scatter: 12 types x 5 ops x 2 places; all_gather: 12 x 2.
  EXPECT_EQ(countOf(r.out, "  mock_oneshot\n"), 120 + 120 + 24) << r.out;
  EXPECT_NE(r.out.find("f8e5m2    avg"), std::string::npos);
  EXPECT_NE(r.out.find("#wrong total: 0 in 264 rows"), std::string::npos);
}

TEST_F(PerfMock, ThreadsTimesGroupedOnFourGpus) {
  mockgpu::setDeviceCount(4);
  const Outcome r = runPerf({"-t", "2", "-g", "2", "-b", "32", "-e", "512", "-f", "16", "-n", "2",
                             "-w", "1", "--pairs", "2", "-d", "bfloat16,int64", "-o", "sum,prod"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# nRanks 4: 2 threads x 2 GPUs each (threads x grouped mode)"),
            std::string::npos);
  EXPECT_NE(r.out.find("#  Rank  3 Pid"), std::string::npos);
}

TEST_F(PerfMock, CudaGraphModeChecksAReplayToo) {
  const long long before = mockgpu::graphLaunches();
  const Outcome r = runPerf({"-G", "3", "-b", "32", "-e", "32", "-i", "both", "-n", "2", "-w", "1",
                             "--pairs", "2"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("CUDA graph, 3 operations per graph"), std::string::npos);
  // Per case and rank: the check replays 2 graphs, each of 2 timed pairs x 2 sides replays 1 + 2.
  EXPECT_EQ(mockgpu::graphLaunches() - before, 6 * 2 * (2 + 2 * 2 * 3));
}

TEST_F(PerfMock, AWrongValueIsCountedNamedAndFailsTheRun) {
  mockgpu::setFlashcclFault(mockgpu::Fault::kFlipFirstElementOnRank1);
  const Outcome r = runPerf({"-b", "8", "-e", "32", "-n", "1", "-w", "0", "--pairs", "1",
                             "-c", "all_reduce,all_gather"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  // Each all_reduce row: 1 element wrong on rank 1, and rank 1 differs from rank 0.
  EXPECT_EQ(countOf(r.out, "     2  mock_oneshot\n"), 3) << r.out;
  EXPECT_EQ(countOf(r.out, "     0  mock_oneshot\n"), 3) << "all_gather rows stay right";
  EXPECT_NE(r.out.find("#wrong total: 6 in 3 of 6 rows: FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("WRONG: rank 1 (GPU 1), all_reduce 8 B float sum out-of-place, eager: 1 of "
                       "2 elements differ from NCCL's result (bitwise); first at index 0: NCCL"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rank(s) 1 hold a different result from rank 0"), std::string::npos);
}

TEST_F(PerfMock, AnUnwrittenElementIsCaughtByThePoison) {
  mockgpu::setFlashcclFault(mockgpu::Fault::kSkipLastElementOnRank0);
  const Outcome r = runPerf({"-b", "16", "-e", "16", "-n", "1", "-w", "0", "--pairs", "1",
                             "-c", "all_reduce", "-d", "int32"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("first at index 3: NCCL"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("flashccl -1 (0xffffffff)"), std::string::npos) << r.err;
}

TEST_F(PerfMock, ToleranceAcceptsRoundingButRanksMustAgree) {
  // 3 ranks, float: the last-bit difference is within tolerance against NCCL, but rank 1 no longer
  // holds the same array as rank 0, which the hash comparison catches.
  mockgpu::setDeviceCount(3);
  mockgpu::setFlashcclFault(mockgpu::Fault::kDifferentLastBitOnRank1);
  const Outcome r = runPerf({"-t", "3", "-b", "12", "-e", "12", "-n", "1", "-w", "0", "--pairs",
                             "1", "-c", "all_reduce"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(r.err.find("elements differ"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank(s) 1 hold a different result from rank 0"), std::string::npos);
  EXPECT_NE(r.out.find("     1  mock_oneshot\n"), std::string::npos) << r.out;
}

TEST_F(PerfMock, NoCheckShowsNotApplicable) {
  mockgpu::setFlashcclFault(mockgpu::Fault::kFlipFirstElementOnRank1);
  const Outcome r = runPerf({"--no-check", "-b", "8", "-e", "8", "-n", "1", "-w", "0", "--pairs",
                             "1", "-c", "all_reduce"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("     N/A  mock_oneshot"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# results not checked (--no-check)"), std::string::npos);
}

TEST_F(PerfMock, FallbackIsReportedAsNccl) {
  mockgpu::setFlashcclAlgorithmName("NCCL");
  const Outcome r = runPerf({"-b", "8", "-e", "8", "-n", "1", "-w", "0", "--pairs", "1", "-c",
                             "reduce_scatter"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("       0  NCCL\n"), std::string::npos) << r.out;
}

TEST_F(PerfMock, DisabledFlashcclIsReportedAsSuch) {
  mockgpu::setFlashcclAlgorithmName("");
  const Outcome r = runPerf({"-b", "8", "-e", "8", "-n", "1", "-w", "0", "--pairs", "1", "-c",
                             "all_gather"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("       0  NCCL (flashccl disabled)\n"), std::string::npos) << r.out;
}

TEST_F(PerfMock, WritesJsonMarkdownAndPlot) {
  const std::string dir = testing::TempDir();
  const Outcome r = runPerf({"--smoke", "-e", "4K", "--json", dir + "/mock.json", "--markdown",
                             dir + "/mock.md", "--plot", dir + "/mock.png", "--machine", "mockbox"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# wrote JSON: " + dir + "/mock.json"), std::string::npos);
  const std::string json = slurp(dir + "/mock.json");
  EXPECT_NE(json.find("\"machine\": \"mockbox\""), std::string::npos);
  EXPECT_NE(json.find("\"wrong_total\": 0"), std::string::npos);
  EXPECT_NE(json.find("\"command\": \"flashccl perf --smoke -e 4K --json"), std::string::npos);
  const std::string md = slurp(dir + "/mock.md");
  EXPECT_NE(md.find("| machine | mockbox |"), std::string::npos);
  EXPECT_NE(md.find("## reduce_scatter"), std::string::npos);
  const std::string png = slurp(dir + "/mock.png");
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST_F(PerfMock, ProcessesModeRunsChildrenAndCollectsRankZerosResults) {
  // One process: the mock's collectives do not cross processes, but the parent's whole path does
  // run: unique id, re-executing this binary with the hidden options, waiting, the results file.
  const std::string dir = testing::TempDir();
  const Outcome r = runPerf({"--procs", "1", "-b", "8", "-e", "64", "-f", "8", "-n", "2", "-w", "1",
                             "--pairs", "2", "-c", "all_reduce,reduce_scatter", "--json",
                             dir + "/procs.json", "--markdown", dir + "/procs.md"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# nRanks 1: 1 process x 1 GPU each (processes mode)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# command: flashccl perf --procs 1 -b 8"), std::string::npos)
      << "children report the command as typed, without the hidden options";
  EXPECT_EQ(r.out.find("--child-rank"), std::string::npos);
  EXPECT_NE(r.out.find("# wrote JSON: " + dir + "/procs.json"), std::string::npos);
  const std::string json = slurp(dir + "/procs.json");
  EXPECT_NE(json.find("\"mode\": \"processes\""), std::string::npos) << json;
  EXPECT_EQ(countOf(json, "\"collective\": "), 4) << json;  // 2 sizes x 2 collectives
  EXPECT_NE(slurp(dir + "/procs.md").find("## reduce_scatter"), std::string::npos);
}

TEST_F(PerfMock, ProcessesModeReportsAFailedRank) {
  setenv("MOCK_FAIL_COMM_INIT", "1", 1);
  const Outcome r = runPerf({"--procs", "1", "-b", "8", "-e", "8", "-c", "all_reduce"});
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
  const Outcome r = runPerf({"--procs", "1", "-b", "8", "-e", "8", "-c", "all_gather", "-T", "1"});
  unsetenv("MOCK_HANG");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no progress for 1 s: a collective is probably hung"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rank 0 ("), std::string::npos);
  EXPECT_NE(r.err.find("all_gather 8 B float out-of-place: check, flashccl's call"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("failed with exit status 3"), std::string::npos) << r.err;
}

TEST_F(PerfMock, UsageErrorsExitTwo) {
  Outcome r = runPerf({"-t", "3"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("asked for 3 GPUs (-t 3) but only 2 are visible"), std::string::npos);
  r = runPerf({"-b", "4", "-e", "4", "-c", "all_gather"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("size 4 B cannot be split evenly over 2 ranks for all_gather"),
            std::string::npos)
      << r.err;
  r = runPerf({"-d", "float128"});
  EXPECT_EQ(r.status, 2);
  mockgpu::setDeviceCount(0);
  r = runPerf({});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "flashccl perf needs NVIDIA GPUs; none found (cudaGetDeviceCount: "
                   "cudaErrorNoDevice: mock CUDA error)\n");
  r = runPerf({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("usage: flashccl perf"), std::string::npos);
}

}  // namespace
