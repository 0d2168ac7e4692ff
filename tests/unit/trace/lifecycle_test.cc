// The watchdog inside a process's life: exit, fork, the dump signal (lifecycle_main.cc).
#include <gtest/gtest.h>

#include <csignal>

#include "run_child.h"
#include "support/temp_dir.h"
#include "trace/trace_clock.h"

namespace flashccl {
namespace {

using testing::runChild;
using testing::TempDir;

const std::map<std::string, std::string> kLoopback = {{"NCCL_SOCKET_IFNAME", "lo"}};

TEST(TraceLifecycle, ExitWhileTheWatchdogWaitsForAPeer) {
  std::map<std::string, std::string> env = kLoopback;
  env["FLASHCCL_HANG_TIMEOUT"] = "0.05";
  const int64_t start = monotonicNs();
  const testing::ChildResult result = runChild({FLASHCCL_TRACE_LIFECYCLE, "exit-while-watching"}, env);
  const int64_t tookMs = (monotonicNs() - start) / 1000000;
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_EQ(result.signal, 0);
  EXPECT_NE(result.out.find("exiting"), std::string::npos);
  EXPECT_LT(tookMs, 2000);  // not held by the watchdog's thread or its open query
}

TEST(TraceLifecycle, AForkedChildDropsTheParentsSocketsAndStartsItsOwn) {
  const testing::ChildResult result = runChild({FLASHCCL_TRACE_LIFECYCLE, "fork"}, kLoopback);
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("parent holds its port: 1"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("child holds the parent's port: 0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("child has its own side channel: 1"), std::string::npos) << result.out;
}

TEST(TraceLifecycle, TheDumpSignalDumpsAndKeepsTheApplicationsHandler) {
  for (int signal : {SIGUSR1, SIGUSR2}) {
    TempDir dir;
    std::map<std::string, std::string> env = kLoopback;
    env["FLASHCCL_TRACE_DIR"] = dir.path();
    if (signal == SIGUSR2) env["FLASHCCL_TRACE_SIGNAL"] = "SIGUSR2";
    const testing::ChildResult result =
        runChild({FLASHCCL_TRACE_LIFECYCLE, "signal", dir.path(), std::to_string(signal)}, env);
    EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("dump flashccl-trace."), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("application handler ran 1"), std::string::npos) << result.out;
  }
}

}  // namespace
}  // namespace flashccl
