// The watchdog end to end inside one test process: two Watchdog instances stand for two
// processes (each with its own side channel on the loopback), each watching one rank.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "log_capture.h"
#include "support/temp_dir.h"
#include "trace/dump_format.h"
#include "trace/trace_clock.h"
#include "trace/watchdog.h"

namespace flashccl {
namespace {

using testing::LogCapture;
using testing::TempDir;

class FakeComm final : public TracedComm {
 public:
  explicit FakeComm(int rank) : rank_(rank), recorder_(64) { recorder_.setDeviceProgress(&started, &completed); }
  int rank() const override { return rank_; }
  int cudaDev() const override { return rank_; }
  const void* ncclHandle() const override { return this; }
  const std::vector<TraceEndpoint>& endpoints() const override { return endpoints_; }
  FlightRecorder& recorder() override { return recorder_; }
  void abort(ncclResult_t reason) override { aborted.store(static_cast<int>(reason)); }
  void revoke(ncclResult_t reason) override {
    revoked.store(true);
    aborted.store(static_cast<int>(reason));
  }

  void call(uint64_t launch) {
    TraceCall c;
    c.kind = TraceKind::kAllReduce;
    c.count = 1024;
    c.dtype = ncclFloat32;
    c.op = ncclSum;
    c.algorithm = "fake";
    c.launch = launch;
    recorder_.record(c);
  }

  std::vector<TraceEndpoint> endpoints_;
  volatile uint64_t started = 0, completed = 0;
  std::atomic<int> aborted{-1};
  std::atomic<bool> revoked{false};

 private:
  int rank_;
  FlightRecorder recorder_;
};

std::vector<std::string> dumpsIn(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      if (std::string(entry->d_name).rfind("flashccl-trace.", 0) == 0) files.push_back(dir + "/" + entry->d_name);
    }
    closedir(d);
  }
  return files;
}

template <typename Done>
bool waitUntil(Done done, int ms) {
  const int64_t end = monotonicNs() + static_cast<int64_t>(ms) * 1000000;
  while (!done()) {
    if (monotonicNs() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

class WatchdogPair : public ::testing::Test {
 protected:
  void SetUp() override { start(400000000, TraceSettings::Action::kAbort); }  // 0.4 s
  void start(int64_t hangTimeoutNs, TraceSettings::Action action) {
    setenv("NCCL_SOCKET_IFNAME", "lo", 1);
    settings_.hangTimeoutNs = hangTimeoutNs;
    settings_.action = action;
    settings_.dumpDir = dir_.path();
    for (int rank = 0; rank < 2; ++rank) {
      watchdogs_.push_back(std::make_unique<Watchdog>(settings_, /*ownsDumpSignal=*/false));
      comms_.push_back(std::make_unique<FakeComm>(rank));
    }
    std::vector<TraceEndpoint> endpoints;
    for (int rank = 0; rank < 2; ++rank) endpoints.push_back(watchdogs_[rank]->endpointForNewComm(rank));
    for (int rank = 0; rank < 2; ++rank) {
      ASSERT_TRUE(hasSideChannel(endpoints[rank]));
      comms_[rank]->endpoints_ = endpoints;
    }
  }
  void TearDown() override {
    for (size_t rank = 0; rank < watchdogs_.size(); ++rank) {
      if (watchdogs_[rank]) watchdogs_[rank]->remove(comms_[rank].get());
    }
    watchdogs_.clear();
    unsetenv("NCCL_SOCKET_IFNAME");
  }

  // Both ranks made call 1 and are watched; rank 0 enters call 2, which rank 1 does not make.
  void rankZeroWaitsInCallTwo() {
    for (int rank = 0; rank < 2; ++rank) {
      comms_[rank]->call(1);
      comms_[rank]->started = comms_[rank]->completed = 1;
      watchdogs_[rank]->add(comms_[rank].get());
    }
    comms_[0]->call(2);
    comms_[0]->started = 2;
  }

  TempDir dir_;
  TraceSettings settings_;
  std::vector<std::unique_ptr<Watchdog>> watchdogs_;
  std::vector<std::unique_ptr<FakeComm>> comms_;
};

// Rank 0 waits in a call rank 1 never makes: both print the verdict (rank 1 because rank 0's
// question tells it somebody waits), both dump, both abort with ncclRemoteError.
TEST_F(WatchdogPair, ARankThatDoesNotCallIsNamedOnBothSides) {
  LogCapture log;
  rankZeroWaitsInCallTwo();
  const int64_t start = monotonicNs();
  ASSERT_TRUE(waitUntil([&] { return comms_[0]->aborted.load() >= 0 && comms_[1]->aborted.load() >= 0; }, 5000))
      << log.text();
  EXPECT_LT(monotonicNs() - start, 2LL * 1000000000);
  EXPECT_EQ(comms_[0]->aborted.load(), ncclRemoteError);
  EXPECT_EQ(comms_[1]->aborted.load(), ncclRemoteError);
  EXPECT_EQ(log.count("hang verdict"), 2) << log.text();
  EXPECT_EQ(log.count("has not called AllReduce seq 2 (4 KiB float sum) that rank 0 waits in; its last call, "
                      "AllReduce seq 1, completed"), 2) << log.text();
  EXPECT_EQ(log.count("hang action: aborting comm"), 2);
  char handle[32];
  std::snprintf(handle, sizeof(handle), " (%p), seen by rank 0", static_cast<const void*>(comms_[0].get()));
  EXPECT_EQ(log.count(handle), 1) << log.text();
  const std::vector<std::string> dumps = dumpsIn(dir_.path());
  ASSERT_EQ(dumps.size(), 2u);
  for (const std::string& path : dumps) {
    struct stat info;
    ASSERT_EQ(stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
  }
  // No second verdict for the same fault.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(log.count("hang verdict"), 2);
}

TEST_F(WatchdogPair, CallsThatCompleteInTimeGiveNothing) {
  LogCapture log;
  for (int rank = 0; rank < 2; ++rank) watchdogs_[rank]->add(comms_[rank].get());
  for (uint64_t i = 1; i <= 12; ++i) {
    for (int rank = 0; rank < 2; ++rank) {
      comms_[rank]->call(i);
      comms_[rank]->started = i;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 4 == 0 ? 250 : 20));  // pauses < timeout
    for (int rank = 0; rank < 2; ++rank) comms_[rank]->completed = i;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_EQ(log.count("hang verdict"), 0) << log.text();
  EXPECT_EQ(comms_[0]->aborted.load(), -1);
  EXPECT_TRUE(dumpsIn(dir_.path()).empty());
}

TEST_F(WatchdogPair, ADumpOnRequestHoldsTheRecorder) {
  for (int rank = 0; rank < 2; ++rank) watchdogs_[rank]->add(comms_[rank].get());
  comms_[0]->call(1);
  watchdogs_[0]->requestDump();
  ASSERT_TRUE(waitUntil([&] { return dumpsIn(dir_.path()).size() == 1; }, 3000));
  std::ifstream in(dumpsIn(dir_.path())[0]);
  std::stringstream text;
  text << in.rdbuf();
  TraceDump dump;
  std::string error;
  ASSERT_TRUE(dumpFromJson(text.str(), &dump, &error)) << error;
  EXPECT_EQ(dump.reason, "signal");
  ASSERT_EQ(dump.comms.size(), 1u);
  EXPECT_EQ(dump.comms[0].snapshot.calls.size(), 1u);
  EXPECT_EQ(dump.comms[0].snapshot.identity.commHash, commHashOf(comms_[0]->endpoints_));
  // A removed communicator is no longer dumped, nor answered for.
  watchdogs_[0]->remove(comms_[0].get());
  EXPECT_EQ(watchdogs_[0]->dump(comms_[0].get(), "signal"), "");
}

// At ncclCommAbort: a dump when a call may still be in flight, none after a clean end.
TEST_F(WatchdogPair, AnAbortDumpsOnlyWhatIsUnsettled) {
  for (int rank = 0; rank < 2; ++rank) watchdogs_[rank]->add(comms_[rank].get());
  comms_[0]->call(1);
  comms_[0]->started = comms_[0]->completed = 1;
  EXPECT_EQ(watchdogs_[0]->dumpAtAbort(comms_[0].get()), "");
  comms_[0]->call(2);
  comms_[0]->started = 2;
  const std::string path = watchdogs_[0]->dumpAtAbort(comms_[0].get());
  EXPECT_NE(path, "");
  EXPECT_EQ(dumpsIn(dir_.path()), std::vector<std::string>{path});
}


// Rank 0 waits in a call rank 1 never makes, with FLASHCCL_HANG_ACTION=revoke: both ranks revoke
// (rank 1 because rank 0's question makes it look), neither merely aborts.
TEST_F(WatchdogPair, RevokeActionRevokesOnBothSides) {
  TearDown();
  watchdogs_.clear();
  comms_.clear();
  start(400000000, TraceSettings::Action::kRevoke);
  LogCapture log;
  rankZeroWaitsInCallTwo();
  ASSERT_TRUE(waitUntil([&] { return comms_[0]->revoked.load() && comms_[1]->revoked.load(); }, 5000))
      << log.text();
  EXPECT_EQ(comms_[0]->aborted.load(), ncclRemoteError);
  EXPECT_EQ(comms_[1]->aborted.load(), ncclRemoteError);
  EXPECT_EQ(log.count("hang action: revoking comm"), 2) << log.text();
  EXPECT_EQ(log.count("hang action: aborting comm"), 0) << log.text();
}

// The dead-peer check: the tests below give the hang timeout a minute, which no test waits for.
class WatchdogPeerGone : public WatchdogPair {
 protected:
  void SetUp() override {}
  // Rank 0 waits in call 2; rank 1 has made call 1 only and, with `gone`, its process ends (its
  // watchdog, and with it its side channel, goes: connections to it are refused).
  void waitWithPeer(TraceSettings::Action action, bool gone) {
    start(60LL * 1000000000, action);
    rankZeroWaitsInCallTwo();
    waitStart_ = monotonicNs();
    if (gone) {
      watchdogs_[1]->remove(comms_[1].get());
      watchdogs_[1].reset();
    }
  }
  int64_t waitStart_ = 0;
};

// Known within 2 s, whatever the timeout and even with FLASHCCL_HANG_ACTION=report: the call can
// never complete, so it fails, with the verdict naming the gone rank.
TEST_F(WatchdogPeerGone, FailsTheCommunicatorInSecondsNotAtTheTimeout) {
  LogCapture log;
  waitWithPeer(TraceSettings::Action::kReport, /*gone=*/true);
  ASSERT_TRUE(waitUntil([&] { return comms_[0]->aborted.load() >= 0; }, 5000)) << log.text();
  EXPECT_LT(monotonicNs() - waitStart_, 2LL * 1000000000);
  EXPECT_EQ(comms_[0]->aborted.load(), ncclRemoteError);
  EXPECT_FALSE(comms_[0]->revoked.load());
  EXPECT_EQ(log.count("hang verdict"), 1) << log.text();
  EXPECT_EQ(log.count("rank 1 (host "), 1) << log.text();
  EXPECT_EQ(log.count(" unreachable since "), 1) << log.text();
  EXPECT_EQ(log.count("(process gone: connection refused); rank 0 has waited"), 1) << log.text();
  EXPECT_EQ(log.count("hang action: aborting comm"), 1) << log.text();
  EXPECT_EQ(log.count("a peer's process is gone"), 1) << log.text();
  // Once: the failed communicator is not checked again.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(log.count("hang verdict"), 1) << log.text();
}

TEST_F(WatchdogPeerGone, RevokesWithTheRevokeAction) {
  LogCapture log;
  waitWithPeer(TraceSettings::Action::kRevoke, /*gone=*/true);
  ASSERT_TRUE(waitUntil([&] { return comms_[0]->revoked.load(); }, 5000)) << log.text();
  EXPECT_LT(monotonicNs() - waitStart_, 2LL * 1000000000);
  EXPECT_EQ(comms_[0]->aborted.load(), ncclRemoteError);
  EXPECT_EQ(log.count("hang action: revoking comm"), 1) << log.text();
}

// A peer that is there but slow (it has not called yet) is no evidence: nothing happens before
// the timeout, although the check asks it every quarter second.
TEST_F(WatchdogPeerGone, APeerThatIsThereIsLeftAlone) {
  LogCapture log;
  waitWithPeer(TraceSettings::Action::kAbort, /*gone=*/false);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(comms_[0]->aborted.load(), -1) << log.text();
  EXPECT_EQ(comms_[1]->aborted.load(), -1) << log.text();
  EXPECT_EQ(log.count("hang verdict"), 0) << log.text();
  // The call completes: the job goes on as if nothing had been asked.
  comms_[1]->call(2);
  comms_[1]->started = comms_[1]->completed = 2;
  comms_[0]->completed = 2;
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(comms_[0]->aborted.load(), -1) << log.text();
}

// A peer gone while nothing waits for it (the end of a job) fails nothing.
TEST_F(WatchdogPeerGone, APeerGoneWhileNothingWaitsIsNoFault) {
  LogCapture log;
  start(60LL * 1000000000, TraceSettings::Action::kAbort);
  for (int rank = 0; rank < 2; ++rank) {
    comms_[rank]->call(1);
    comms_[rank]->started = comms_[rank]->completed = 1;
    watchdogs_[rank]->add(comms_[rank].get());
  }
  watchdogs_[1]->remove(comms_[1].get());
  watchdogs_[1].reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(comms_[0]->aborted.load(), -1) << log.text();
  EXPECT_EQ(log.count("hang verdict"), 0) << log.text();
}

}  // namespace
}  // namespace flashccl
