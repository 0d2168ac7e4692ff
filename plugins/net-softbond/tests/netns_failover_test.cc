// Two network namespaces joined by two veth pairs (two rails); a sender in one, a receiver in the
// other, each a process driving the plugin through its ncclNet table. Links are taken down and
// brought back under them, and loss and delay put on one rail. Needs root (CI runs as root);
// skipped with the reason elsewhere.
#include <gtest/gtest.h>

#include <memory>

#include "peer_pair.h"
#include "two_rail_network.h"

namespace softbond_test {
namespace {

constexpr int kTimeoutMs = 1000;

class TwoRails : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason = TwoRailNetwork::unavailableReason();
    if (!reason.empty()) GTEST_SKIP() << "namespace tests not run: " << reason;
    network_ = std::make_unique<TwoRailNetwork>();
    std::string error;
    ASSERT_TRUE(network_->create(&error)) << error;
  }

  PeerSide side(char which, std::vector<std::pair<std::string, std::string>> extra = {}) {
    PeerSide peer;
    peer.prefix = network_->inside(which);
    peer.env = {{"FLASHCCL_SOFTBOND_RAILS", network_->rails(which)},
                {"FLASHCCL_SOFTBOND_TIMEOUT_MS", std::to_string(kTimeoutMs)},
                {"FLASHCCL_SOFTBOND_PROBE_MS", "300"}};
    peer.env.insert(peer.env.end(), extra.begin(), extra.end());
    return peer;
  }

  PairOutcome run(const std::vector<std::string>& plan, std::vector<TimedAction> actions = {}, double timeout = 120) {
    return runPeerPair(side('B'), side('A'), plan, std::move(actions), timeout);
  }

  std::unique_ptr<TwoRailNetwork> network_;
};

TEST_F(TwoRails, ChecksummedTransfersFrom1KBTo256MBUseBothRails) {
  PairOutcome outcome = run({"--sizes", "1K,64K,1M,16M,256M", "--count", "10", "--inflight", "8"});
  ASSERT_TRUE(outcome.bothOk()) << outcome.describe();
  EXPECT_EQ(PairOutcome::field(outcome.receiverResult, "completed"), 10);
  for (int rail : {0, 1})
    EXPECT_GT(network_->txBytes('A', rail), 100u << 20) << "rail " << rail << " carried too little\n" << outcome.describe();
}

TEST_F(TwoRails, ManyMessagesInFlight) {
  PairOutcome outcome = run({"--sizes", "4K,100K,1M", "--count", "3000", "--inflight", "8"});
  ASSERT_TRUE(outcome.bothOk()) << outcome.describe();
}

TEST_F(TwoRails, RailTakenDownMidTransferCompletesIntactWithinTimeoutPlusOneSecond) {
  PairOutcome outcome = run({"--sizes", "4M", "--count", "700"},
                            {{1.0, [&] { ASSERT_TRUE(network_->setLink('A', 0, false)); }}});
  ASSERT_TRUE(outcome.bothOk()) << outcome.describe();
  EXPECT_LE(PairOutcome::field(outcome.receiverResult, "max_gap_ms"), kTimeoutMs + 1000) << outcome.describe();
  EXPECT_EQ(countLines(outcome.senderLog, {"WARN", "rail 0", "failed", "all delivered"}) +
                countLines(outcome.senderLog, {"WARN", "rail 0", "failed", "nothing was in flight"}),
            1)
      << outcome.describe();
  EXPECT_EQ(countLines(outcome.receiverLog, {"WARN", "rail 0", "receiving continues on rail 1"}), 1)
      << outcome.describe();
}

TEST_F(TwoRails, RailThatComesBackCarriesTrafficAgain) {
  uint64_t atUp = 0;
  PairOutcome outcome = run({"--sizes", "4M", "--count", "1200", "--info"},
                            {{0.8, [&] { network_->setLink('A', 0, false); }},
                             {2.3, [&] {
                                network_->setLink('A', 0, true);
                                atUp = network_->txBytes('A', 0);
                              }}});
  ASSERT_TRUE(outcome.bothOk()) << outcome.describe();
  ASSERT_LT(2.3, outcome.seconds) << "the transfer ended before the rail came back; make it longer";
  EXPECT_EQ(countLines(outcome.senderLog, {"WARN", "rail 0", "back in service"}), 1) << outcome.describe();
  EXPECT_GT(network_->txBytes('A', 0) - atUp, 64u << 20) << "rail 0 carried little after it came back\n"
                                                         << outcome.describe();
  EXPECT_EQ(countLines(outcome.senderLog, {"rail 0", " 0 of them since it last rejoined"}), 0) << outcome.describe();
}

TEST_F(TwoRails, RailDownWhenTheJobStartsDoesNotHoldItUpAndJoinsLater) {
  ASSERT_TRUE(network_->setLink('A', 0, false));
  PairOutcome outcome = run({"--sizes", "4M", "--count", "800", "--info"},
                            {{1.5, [&] { ASSERT_TRUE(network_->setLink('A', 0, true)); }}});
  ASSERT_TRUE(outcome.bothOk()) << outcome.describe();
  EXPECT_EQ(countLines(outcome.senderLog, {"WARN", "rail 0", "out of service from the start"}), 1)
      << outcome.describe();
  EXPECT_EQ(countLines(outcome.senderLog, {"WARN", "rail 0", "back in service"}), 1) << outcome.describe();
  EXPECT_GT(network_->txBytes('A', 0), 64u << 20) << "rail 0 never carried traffic\n" << outcome.describe();
}

TEST_F(TwoRails, BothRailsDownIsACleanErrorNotAHang) {
  PairOutcome outcome = run({"--sizes", "4M", "--count", "100000"},
                            {{1.0,
                              [&] {
                                network_->setLink('A', 0, false);
                                network_->setLink('A', 1, false);
                              }}},
                            /*timeout=*/30);
  // Both sides report an error from the plugin (exit 3): neither hangs (killed: timedOut) nor
  // crashes (negative exit code = signal).
  EXPECT_EQ(outcome.sender.exitCode, 3) << outcome.describe();
  EXPECT_EQ(outcome.receiver.exitCode, 3) << outcome.describe();
  EXPECT_FALSE(outcome.sender.timedOut || outcome.receiver.timedOut) << outcome.describe();
  EXPECT_LT(outcome.seconds, 1.0 + kTimeoutMs / 1000.0 + 3) << outcome.describe();
  EXPECT_NE(outcome.senderResult.find("error=2"), std::string::npos) << outcome.describe();  // ncclSystemError
  EXPECT_EQ(countLines(outcome.senderLog, {"WARN", "every rail", "has failed"}), 1) << outcome.describe();
}

TEST_F(TwoRails, LossAndDelayOnOneRailStillDeliverEveryByte) {
  std::string error;
  std::string applied = network_->impair(0, 2.0, 20, &error);
  ASSERT_FALSE(applied.empty()) << error;
  std::cout << "rail 0 impaired with " << applied << "\n";
  PairOutcome outcome = run({"--sizes", "1K,64K,1M,16M", "--count", "80", "--inflight", "8"});
  ASSERT_TRUE(outcome.bothOk()) << applied << "\n" << outcome.describe();
}

}  // namespace
}  // namespace softbond_test
