// The watchdog end to end across processes: fake jobs of four ranks (fake_rank_main.cc), each a
// process with its own side channel and watchdog, on the loopback. Time is scaled down (a 1.5 s
// timeout) so that every case runs in seconds.
#include <gtest/gtest.h>
#include <nccl.h>
#include <sys/stat.h>

#include "fake_job.h"
#include "support/temp_dir.h"
#include "trace/trace_endpoint.h"

namespace flashccl {
namespace {

using testing::FakeJob;
using testing::TempDir;

constexpr int kRanks = 4;
constexpr int kCulprit = 2;
constexpr int kTimeoutMs = 1500;
// A verdict must come within the timeout plus this (poll interval, queries, a loaded CI box).
constexpr int kVerdictSlackMs = 3000;

std::map<std::string, std::string> environment(const std::string& dumps, const char* action,
                                               double timeoutSeconds) {
  return {{"FLASHCCL_HANG_TIMEOUT", std::to_string(timeoutSeconds)},
          {"FLASHCCL_HANG_ACTION", action},
          {"FLASHCCL_TRACE_DIR", dumps},
          {"FLASHCCL_DEBUG", "WARN"},
          {"NCCL_SOCKET_IFNAME", "lo"}};
}

std::string identity(const FakeJob& job, int rank) {
  return "rank " + std::to_string(rank) + " (host " + traceHostName() + ", pid " +
         std::to_string(job.rank(rank).pid) + ", GPU " + std::to_string(rank) + ")";
}

struct Timing {
  int64_t faultMs = -1;
  std::vector<int64_t> verdictMs = std::vector<int64_t>(kRanks, -1);
};

// Runs a faulty job; returns when each rank printed its verdict.
Timing runFault(FakeJob& job, int ms) {
  Timing timing;
  job.run(ms, [&] {
    if (timing.faultMs < 0) timing.faultMs = job.firstSeenMs(kCulprit, "fault at");
    for (int rank = 0; rank < kRanks; ++rank) {
      if (timing.verdictMs[rank] < 0) timing.verdictMs[rank] = job.firstSeenMs(rank, "hang verdict");
    }
  });
  return timing;
}

class FaultyJob : public ::testing::Test {
 protected:
  std::string dumps() {
    const std::string path = dir_.path() + "/dumps";
    mkdir(path.c_str(), 0700);
    return path;
  }
  // A job of kRanks fake ranks whose culprit misbehaves at call 50 as `scenario` says.
  std::unique_ptr<FakeJob> startJob(const char* scenario, const char* action) {
    return std::make_unique<FakeJob>(
        FLASHCCL_TRACE_FAKE_RANK, dir_.path(), kRanks,
        std::vector<std::string>{"--calls", "200", "--scenario", scenario, "--culprit",
                                 std::to_string(kCulprit), "--at", "50"},
        environment(dumps(), action, kTimeoutMs / 1000.0));
  }
  // Every rank in `ranks` printed `line` within the timeout plus slack of the fault, and (with
  // abort) left with the watchdog's abort soon after.
  void expectVerdict(FakeJob& job, const Timing& timing, const std::vector<int>& ranks,
                     const std::string& line, int abortReason) {
    ASSERT_GE(timing.faultMs, 0) << job.describe();
    for (int rank : ranks) {
      EXPECT_GE(timing.verdictMs[rank], 0) << "rank " << rank << " printed no verdict\n" << job.describe();
      EXPECT_LE(timing.verdictMs[rank] - timing.faultMs, kTimeoutMs + kVerdictSlackMs) << "rank " << rank;
      const std::string& err = job.rank(rank).err;
      EXPECT_NE(err.find(line), std::string::npos) << "rank " << rank << " lacks: " << line << "\n" << err;
      if (abortReason >= 0) {
        EXPECT_EQ(job.rank(rank).exitCode, 3) << job.describe();
        EXPECT_NE(job.rank(rank).out.find("exit 3 (abort reason " + std::to_string(abortReason) + ")"),
                  std::string::npos) << job.rank(rank).out;
        EXPECT_LE(job.exitMs(rank) - timing.verdictMs[rank], 4000) << "rank " << rank;
      }
    }
  }
  TempDir dir_;
};

TEST_F(FaultyJob, ARankThatStopsCalling) {
  std::unique_ptr<FakeJob> running = startJob("stop", "abort");
  FakeJob& job = *running;
  const Timing timing = runFault(job, 20000);
  // Every rank says it, the culprit too (its peers' questions make it look).
  expectVerdict(job, timing, {0, 1, 2, 3},
                identity(job, kCulprit) + " has not called AllReduce seq 50 (1 KiB float sum) that ranks "
                                          "0-1,3 wait in; its last call, AllReduce seq 49, completed",
                ncclRemoteError);
}

TEST_F(FaultyJob, ARankKilled) {
  std::unique_ptr<FakeJob> running = startJob("kill", "abort");
  FakeJob& job = *running;
  const Timing timing = runFault(job, 20000);
  EXPECT_EQ(job.rank(kCulprit).signal, SIGKILL);
  expectVerdict(job, timing, {0, 1, 3}, identity(job, kCulprit) + " unreachable since ", ncclRemoteError);
  for (int rank : {0, 1, 3}) {
    // Who waits: those of the ranks that the dead-peer check found waiting (it need not be all).
    EXPECT_NE(job.rank(rank).err.find("(process gone: connection refused); rank"),
              std::string::npos) << job.rank(rank).err;
  }
}

TEST_F(FaultyJob, ARankOnAnotherCollective) {
  std::unique_ptr<FakeJob> running = startJob("mismatch", "abort");
  FakeJob& job = *running;
  const Timing timing = runFault(job, 20000);
  expectVerdict(job, timing, {0, 1, 2, 3},
                "rank 2 called AllGather(256 x float) where ranks 0-1,3 called AllReduce(256 x float, sum) at seq 50",
                ncclInvalidUsage);
}

TEST_F(FaultyJob, AKernelThatNeverCompletes) {
  std::unique_ptr<FakeJob> running = startJob("stall", "abort");
  FakeJob& job = *running;
  const Timing timing = runFault(job, 20000);
  expectVerdict(job, timing, {0, 1, 2, 3},
                identity(job, kCulprit) + " has not called AllReduce seq 51 (2 KiB float sum) that ranks 0-1,3 "
                                          "wait in; its last call, AllReduce seq 50, started",
                ncclRemoteError);
  EXPECT_NE(job.rank(0).err.find("and has not completed"), std::string::npos) << job.rank(0).err;
}

TEST_F(FaultyJob, ReportOnlyLeavesTheJobAlone) {
  std::unique_ptr<FakeJob> running = startJob("stop", "report");
  FakeJob& job = *running;
  Timing timing;
  // Past the verdict and past the moment the abort action would have struck.
  job.run(kTimeoutMs + 4000, [&] {
    if (timing.faultMs < 0) timing.faultMs = job.firstSeenMs(kCulprit, "fault at");
    if (timing.verdictMs[0] < 0) timing.verdictMs[0] = job.firstSeenMs(0, "hang verdict");
  });
  EXPECT_GE(timing.verdictMs[0], 0) << job.describe();
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_FALSE(job.rank(rank).exited) << job.describe();
    EXPECT_EQ(job.rank(rank).err.find("hang action"), std::string::npos);
  }
}

// The no-false-alarm case, scaled by 0.5 in time and 0.2 in calls: one rank pauses for
// 40% of the timeout every 100 calls (2 s of 5 s in the issue), sizes change from call to call.
TEST(HealthyJob, PausesShorterThanTheTimeoutNeverRaiseAnAlarm) {
  TempDir dir;
  const std::string dumps = dir.path() + "/dumps";
  mkdir(dumps.c_str(), 0700);
  FakeJob job(FLASHCCL_TRACE_FAKE_RANK, dir.path(), kRanks,
              {"--calls", "2000", "--culprit", "1", "--pause-every", "100", "--pause-ms", "1000"},
              environment(dumps, "abort", 2.5));
  job.run(90000);
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_EQ(job.rank(rank).exitCode, 0) << job.describe();
    EXPECT_NE(job.rank(rank).out.find("done: 2000 calls"), std::string::npos);
    EXPECT_EQ(job.rank(rank).err.find("hang verdict"), std::string::npos) << job.rank(rank).err;
  }
}


// Notes when each rank first printed each of `lines` (and the culprit its fault), for firstSeenMs.
void noteTimes(FakeJob& job, const std::vector<std::string>& lines) {
  job.firstSeenMs(kCulprit, "fault at");
  for (int rank = 0; rank < kRanks; ++rank) {
    for (const std::string& line : lines) job.firstSeenMs(rank, line);
  }
}

// A job whose culprit misbehaves at call 50 as `scenario` says and whose survivors then run 1000
// calls on a child without it.
std::unique_ptr<FakeJob> recoveryJob(TempDir& dir, const char* scenario, const char* action, double timeoutSeconds) {
  const std::string dumps = dir.path() + "/dumps";
  mkdir(dumps.c_str(), 0700);
  return std::make_unique<FakeJob>(
      FLASHCCL_TRACE_FAKE_RANK, dir.path(), kRanks,
      std::vector<std::string>{"--calls", "200", "--scenario", scenario, "--culprit", std::to_string(kCulprit),
                               "--at", "50", "--child-calls", "1000"},
      environment(dumps, action, timeoutSeconds));
}

// Recovery, as an application does it (docs/trace.md, "Recovery"): rank 2 is killed at call 50
// of a job whose hang timeout is a minute away; the survivors' communicator fails within 2 s
// (the dead-peer check), they make a child without rank 2 (fresh endpoints among themselves,
// the child watched) and run 1000 calls on it, no verdict coming of the parent's fault there.
TEST(Recovery, ARankKilledIsCutOutInSecondsAndTheSurvivorsGoOn) {
  TempDir dir;
  std::unique_ptr<FakeJob> running = recoveryJob(dir, "kill", "report", 60);
  FakeJob& job = *running;
  const std::string failedLine =
      "the watchdog failed the communicator (reason " + std::to_string(ncclRemoteError) + ")";
  job.run(30000, [&] { noteTimes(job, {failedLine, "child first call ok at"}); });
  const int64_t fault = job.firstSeenMs(kCulprit, "fault at");
  ASSERT_GE(fault, 0) << job.describe();
  EXPECT_EQ(job.rank(kCulprit).signal, SIGKILL);
  for (int rank : {0, 1, 3}) {
    const testing::RankRun& run = job.rank(rank);
    EXPECT_EQ(run.exitCode, 0) << job.describe();
    const int64_t failed = job.firstSeenMs(rank, failedLine);
    ASSERT_GE(failed, 0) << job.describe();
    EXPECT_LE(failed - fault, 2000) << "rank " << rank;
    const int64_t child = job.firstSeenMs(rank, "child first call ok at");
    ASSERT_GE(child, 0) << job.describe();
    EXPECT_LE(child - fault, 5000) << "rank " << rank;
    EXPECT_NE(run.out.find("child done: 1000 calls, 0 wrong"), std::string::npos) << run.out;
    EXPECT_NE(run.err.find(identity(job, kCulprit) + " unreachable since "), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("revoking"), std::string::npos) << run.err;
  }
}

// The second case: rank 2 stops calling (alive); FLASHCCL_HANG_ACTION=revoke revokes every rank's
// communicator at the timeout, the survivors' child without rank 2 runs its 1000 calls.
TEST(Recovery, ARankThatStopsCallingIsRevokedAndTheSurvivorsGoOn) {
  TempDir dir;
  std::unique_ptr<FakeJob> running = recoveryJob(dir, "stop", "revoke", kTimeoutMs / 1000.0);
  FakeJob& job = *running;
  job.run(30000, [&] { noteTimes(job, {"child first call ok at"}); });
  const int64_t fault = job.firstSeenMs(kCulprit, "fault at");
  ASSERT_GE(fault, 0) << job.describe();
  for (int rank : {0, 1, 3}) {
    const testing::RankRun& run = job.rank(rank);
    EXPECT_EQ(run.exitCode, 0) << job.describe();
    EXPECT_NE(run.out.find("revoked (reason " + std::to_string(ncclRemoteError) + ")"), std::string::npos) << run.out;
    const int64_t child = job.firstSeenMs(rank, "child first call ok at");
    ASSERT_GE(child, 0) << job.describe();
    EXPECT_LE(child - fault, kTimeoutMs + 5000) << "rank " << rank;
    EXPECT_NE(run.out.find("child done: 1000 calls, 0 wrong"), std::string::npos) << run.out;
    EXPECT_NE(run.err.find("hang action: revoking comm"), std::string::npos) << run.err;
  }
  EXPECT_EQ(job.rank(kCulprit).exitCode, 3) << job.describe();
  EXPECT_NE(job.rank(kCulprit).out.find("revoked (reason "), std::string::npos) << job.rank(kCulprit).out;
}

}  // namespace
}  // namespace flashccl
