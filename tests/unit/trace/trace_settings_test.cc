#include <gtest/gtest.h>

#include <csignal>

#include "snapshot_builder.h"
#include "trace/suspicion.h"
#include "trace/trace_settings.h"

namespace flashccl {
namespace {

using testing::collective;
using testing::SnapshotBuilder;

TEST(TraceSettings, ParseSignal) {
  int signal = -1;
  EXPECT_TRUE(parseSignal("SIGUSR1", &signal));
  EXPECT_EQ(signal, SIGUSR1);
  EXPECT_TRUE(parseSignal("usr2", &signal));
  EXPECT_EQ(signal, SIGUSR2);
  EXPECT_TRUE(parseSignal("none", &signal));
  EXPECT_EQ(signal, 0);
  EXPECT_TRUE(parseSignal("12", &signal));
  EXPECT_EQ(signal, 12);
  for (const char* refused : {"SIGTERM", "15", "9", "SIGSEGV", "11", "banana", "", "-1", "999"}) {
    EXPECT_FALSE(parseSignal(refused, &signal)) << refused;
  }
}

TEST(TraceSettings, FromConfig) {
  Config config;
  TraceSettings settings = TraceSettings::fromConfig(config);
  EXPECT_EQ(settings.mode, TraceSettings::Mode::kOn);
  EXPECT_EQ(settings.entries, 2048u);
  EXPECT_EQ(settings.hangTimeoutNs, 480LL * 1000000000);
  EXPECT_EQ(settings.action, TraceSettings::Action::kReport);
  EXPECT_EQ(settings.dumpSignal, SIGUSR1);
  EXPECT_FALSE(settings.dumpDir.empty());
  EXPECT_EQ(settings.pollIntervalNs(), 1000000000);
  EXPECT_EQ(settings.queryTimeoutMs(), 2000);

  config.trace = "full";
  config.hangAction = "abort";
  config.hangTimeoutSeconds = 1.5;
  config.traceDir = "/somewhere";
  config.traceSignal = "none";
  settings = TraceSettings::fromConfig(config);
  EXPECT_EQ(settings.mode, TraceSettings::Mode::kFull);
  EXPECT_EQ(settings.action, TraceSettings::Action::kAbort);
  EXPECT_EQ(settings.hangTimeoutNs, 1500000000);
  EXPECT_EQ(settings.dumpDir, "/somewhere");
  EXPECT_EQ(settings.dumpSignal, 0);
  EXPECT_EQ(settings.pollIntervalNs(), 150000000);
  EXPECT_EQ(settings.queryTimeoutMs(), 750);

  config.trace = "0";
  EXPECT_EQ(TraceSettings::fromConfig(config).mode, TraceSettings::Mode::kOff);
  config.trace = "sometimes";
  config.hangAction = "explode";
  config.traceSignal = "SIGKILL";
  settings = TraceSettings::fromConfig(config);
  EXPECT_EQ(settings.mode, TraceSettings::Mode::kOn);
  EXPECT_EQ(settings.action, TraceSettings::Action::kReport);
  EXPECT_EQ(settings.dumpSignal, SIGUSR1);
}

TEST(Suspicion, WaitingIdleOrNothing) {
  const int64_t timeout = 5 * testing::kSecond;
  EXPECT_EQ(suspect(SnapshotBuilder(1, 0, 2).history(3).build(), timeout).kind, Suspicion::Kind::kNone);
  const ProgressSnapshot waiting = SnapshotBuilder(1, 0, 2)
                                       .history(3)
                                       .call(collective(TraceKind::kAllReduce, 8), CallState::kStarted, 6)
                                       .build();
  const Suspicion s = suspect(waiting, timeout);
  EXPECT_EQ(s.kind, Suspicion::Kind::kWaiting);
  EXPECT_EQ(s.seq, 4u);
  EXPECT_EQ(s.waitedNs, 6 * testing::kSecond);
  const ProgressSnapshot young = SnapshotBuilder(1, 0, 2)
                                     .history(3)
                                     .call(collective(TraceKind::kAllReduce, 8), CallState::kEnqueued, 4)
                                     .build();
  EXPECT_EQ(suspect(young, timeout).kind, Suspicion::Kind::kNone);
  const ProgressSnapshot idle = SnapshotBuilder(1, 0, 2).history(3).untracked().build();
  const Suspicion i = suspect(idle, timeout);
  EXPECT_EQ(i.kind, Suspicion::Kind::kIdle);
  EXPECT_EQ(i.recordId, 2u);
}

}  // namespace
}  // namespace flashccl
