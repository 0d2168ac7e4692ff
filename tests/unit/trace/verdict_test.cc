#include <gtest/gtest.h>

#include "snapshot_builder.h"
#include "trace/trace_clock.h"
#include "trace/verdict.h"

namespace flashccl {
namespace {

using testing::collective;
using testing::commReport;
using testing::kSecond;
using testing::reachable;
using testing::SnapshotBuilder;
using testing::texts;
using testing::unreachable;

constexpr uint64_t kComm = 0x9f3a2b1c0d4e5f60ull;

// `nranks` ranks that completed `history` calls, then made `call` `agoSeconds` ago, each in the
// state `stateOf(rank)` says (completed `doneAgoSeconds` ago, where that applies).
template <typename StateOf>
std::vector<RankReport> lastCallOnEveryRank(int nranks, int history, const TraceCall& call, StateOf stateOf,
                                            double agoSeconds, double doneAgoSeconds = -1) {
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < nranks; ++rank) {
    ranks.push_back(reachable(SnapshotBuilder(kComm, rank, nranks)
                                  .history(history)
                                  .call(call, stateOf(rank), agoSeconds, doneAgoSeconds)
                                  .build()));
  }
  return ranks;
}

// AllReduce calls of 1024 floats: every rank made `history` + 1, whose last (made `lastAgo` s ago)
// every rank completed but `laggard`, where it is in `state`; every other rank made one more,
// `nextAgo` s ago, and waits in it.
std::vector<RankReport> ranksPastOneLaggard(int nranks, int history, int laggard, CallState state, double lastAgo,
                                            double nextAgo) {
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < nranks; ++rank) {
    SnapshotBuilder builder(kComm, rank, nranks);
    builder.history(history).call(collective(TraceKind::kAllReduce, 1024),
                                  rank == laggard ? state : CallState::kCompleted, lastAgo, lastAgo - 1);
    if (rank != laggard) builder.call(collective(TraceKind::kAllReduce, 1024), CallState::kStarted, nextAgo);
    ranks.push_back(reachable(builder.build()));
  }
  return ranks;
}

// The analysis finds exactly one fault: of this kind, blaming these ranks, in these words.
void expectOneFinding(const std::vector<RankReport>& ranks, Finding::Kind kind, const std::vector<int>& culprits,
                      const std::string& text) {
  const std::vector<Finding> findings = analyzeHang(commReport(ranks));
  ASSERT_EQ(findings.size(), 1u) << ::testing::PrintToString(texts(findings));
  EXPECT_EQ(findings[0].kind, kind);
  EXPECT_EQ(findings[0].ranks, culprits);
  EXPECT_TRUE(findings[0].blocking);
  EXPECT_EQ(findings[0].text, text);
}

TEST(RankRanges, Compressed) {
  EXPECT_EQ(rankRangesText({0, 1, 2, 4, 5, 6, 7}), "0-2,4-7");
  EXPECT_EQ(rankRangesText({3}), "3");
  EXPECT_EQ(rankRangesText({7, 1, 3, 2, 2}), "1-3,7");
  EXPECT_EQ(rankRangesText({0, 2, 4}), "0,2,4");
  EXPECT_EQ(rankRangesText({}), "");
  EXPECT_EQ(ranksText({5}), "rank 5");
  EXPECT_EQ(ranksText({0, 1}), "ranks 0-1");
}

TEST(CallText, ArgumentsAndSizes) {
  EXPECT_EQ(bytesText(64u << 20), "64 MiB");
  EXPECT_EQ(bytesText(1536), "1.5 KiB");
  EXPECT_EQ(bytesText(8), "8 B");
  EXPECT_EQ(callArgumentsText(collective(TraceKind::kAllReduce, 1024)), "AllReduce(1024 x float, sum)");
  EXPECT_EQ(callArgumentsText(collective(TraceKind::kAllGather, 1024)), "AllGather(1024 x float)");
  TraceCall bcast = collective(TraceKind::kBroadcast, 8, ncclInt32);
  bcast.peer = 2;
  EXPECT_EQ(callArgumentsText(bcast), "Broadcast(8 x int32, root 2)");
  TraceCall send = collective(TraceKind::kSend, 4, ncclUint8);
  send.peer = 3;
  EXPECT_EQ(callArgumentsText(send), "Send(4 x uint8, to rank 3)");
  // The whole buffer, as NCCL tools report: AllGather's output is nranks x sendcount.
  EXPECT_EQ(callWithSizeText(collective(TraceKind::kAllGather, 256), 9, 4),
            "AllGather seq 9 (4 KiB float)");
  EXPECT_EQ(callWithSizeText(collective(TraceKind::kAllReduce, 32u << 20, ncclBfloat16), 1842, 8),
            "AllReduce seq 1842 (64 MiB bfloat16 sum)");
}

// The first example: rank 3 never calls the AllReduce that every other rank waits in.
TEST(Verdict, RankThatHasNotCalled) {
  const TraceCall big = collective(TraceKind::kAllReduce, 32u << 20, ncclBfloat16);
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < 8; ++rank) {
    SnapshotBuilder builder(kComm, rank, 8);
    builder.history(1840).call(collective(TraceKind::kAllGather, 1u << 20, ncclBfloat16),
                               CallState::kCompleted, 66, 65);
    if (rank != 3) builder.call(big, CallState::kStarted, 64);
    ranks.push_back(reachable(builder.build()));
  }
  expectOneFinding(ranks, Finding::Kind::kNotCalled, {3},
                   "rank 3 (host h0, pid 1003, GPU 3) has not called AllReduce seq 1842 (64 MiB bfloat16 "
                   "sum) that ranks 0-2,4-7 wait in; its last call, AllGather seq 1841, completed 65 s ago");
  EXPECT_EQ(analyzeHang(commReport(ranks))[0].seq, 1842u);
}

TEST(Verdict, NothingWhileTheLateRankIsWithinTheTimeout) {
  // A rank pausing 2 s with a 5 s timeout: the others have waited 2 s, no finding.
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < 4; ++rank) {
    SnapshotBuilder builder(kComm, rank, 4);
    builder.history(99);
    if (rank != 1) builder.call(collective(TraceKind::kAllReduce, 64), CallState::kStarted, 2);
    ranks.push_back(reachable(builder.build()));
  }
  EXPECT_TRUE(analyzeHang(commReport(ranks)).empty());
}

TEST(Verdict, HealthyRanksAtTheSameCallGiveNothing) {
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < 4; ++rank) ranks.push_back(reachable(SnapshotBuilder(kComm, rank, 4).history(50).build()));
  EXPECT_TRUE(analyzeHang(commReport(ranks)).empty());
}

TEST(Verdict, DeadRankWhileOthersWait) {
  const int64_t since = 1700000000LL * kSecond;
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < 8; ++rank) {
    if (rank == 5) {
      ranks.push_back(unreachable(5, "process gone: connection refused", since));
      continue;
    }
    ranks.push_back(reachable(SnapshotBuilder(kComm, rank, 8)
                                  .history(76)
                                  .call(collective(TraceKind::kAllReduce, 1024), CallState::kStarted, 30)
                                  .build()));
  }
  expectOneFinding(ranks, Finding::Kind::kUnreachable, {5},
                   "rank 5 (host h1, pid 1005, GPU 5) unreachable since " + clockTimeText(since) +
                       " (process gone: connection refused); ranks 0-4,6-7 have waited 30 s in "
                       "AllReduce seq 77 (4 KiB float sum)");
}

TEST(Verdict, AGonePeerThatNobodyWaitsForIsOnlyContext) {
  // The end of a job: rank 1 exited after the last call, rank 0 lingers (checkpointing).
  std::vector<RankReport> ranks = {
      reachable(SnapshotBuilder(kComm, 0, 2).history(10).build()),
      unreachable(1, "process gone: connection refused")};
  const std::vector<Finding> findings = analyzeHang(commReport(ranks));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_FALSE(findings[0].blocking);
  EXPECT_FALSE(anyBlocking(findings));
  EXPECT_EQ(findings[0].text, "rank 1 (host h0, pid 1001, GPU 1) unreachable (process gone: connection refused)");
}

TEST(Verdict, ForwardedCallsWithoutProgressStillShowWhoIsBehind) {
  // Forwarded to NCCL, nobody follows completion: a gone rank is no verdict, a rank that is behind is.
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    SnapshotBuilder builder(kComm, rank, 2);
    builder.history(5);
    if (rank == 0) builder.call(collective(TraceKind::kBroadcast, 8), CallState::kUntracked, 20);
    ranks.push_back(reachable(builder.untracked().build()));
  }
  ranks[0].snapshot.calls.back().call.peer = 0;
  expectOneFinding(ranks, Finding::Kind::kNotCalled, {1},
                   "rank 1 (host h0, pid 1001, GPU 1) has not called Broadcast seq 6 (32 B float, root 0) "
                   "that rank 0 waits in; its last call, AllReduce seq 5, was made 100 s ago");
}

// The mismatch example.
TEST(Verdict, RanksOnDifferentCollectives) {
  std::vector<RankReport> ranks = {
      reachable(SnapshotBuilder(kComm, 0, 2)
                    .history(5)
                    .call(collective(TraceKind::kAllReduce, 1024), CallState::kStarted, 12)
                    .build()),
      reachable(SnapshotBuilder(kComm, 1, 2)
                    .history(5)
                    .call(collective(TraceKind::kAllGather, 1024), CallState::kStarted, 12)
                    .build())};
  const std::vector<Finding> findings = analyzeHang(commReport(ranks));
  ASSERT_GE(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, Finding::Kind::kMismatch);
  EXPECT_TRUE(findings[0].blocking);
  EXPECT_EQ(findings[0].text,
            "rank 1 called AllGather(1024 x float) where rank 0 called AllReduce(1024 x float, "
            "sum) at seq 6");
}

TEST(Verdict, MismatchNamesTheMinority) {
  std::vector<RankReport> ranks =
      lastCallOnEveryRank(4, 3, collective(TraceKind::kAllReduce, 1024), [](int) { return CallState::kStarted; }, 9);
  ranks[2].snapshot.calls.back().call.count = 2048;
  const std::vector<Finding> findings = analyzeHang(commReport(ranks));
  ASSERT_GE(findings.size(), 1u);
  EXPECT_EQ(findings[0].ranks, std::vector<int>{2});
  EXPECT_EQ(findings[0].text,
            "rank 2 called AllReduce(2048 x float, sum) where ranks 0-1,3 called AllReduce(1024 x "
            "float, sum) at seq 4");
}

TEST(Verdict, PerRankPreMulSumHandlesAreNotAMismatch) {
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    TraceCall call = collective(TraceKind::kAllReduce, 64);
    call.op = static_cast<int32_t>(ncclNumOps) + rank;  // each rank's own handle
    ranks.push_back(reachable(SnapshotBuilder(kComm, rank, 2).history(2).call(call, CallState::kCompleted, 1).build()));
  }
  EXPECT_TRUE(analyzeHang(commReport(ranks)).empty());
}

// The GPU-side stall: every rank entered the call; one kernel never finishes.
TEST(Verdict, KernelThatHasNotCompleted) {
  expectOneFinding(lastCallOnEveryRank(4, 76, collective(TraceKind::kAllReduce, 1024),
                                       [](int rank) { return rank == 2 ? CallState::kStarted : CallState::kCompleted; },
                                       40, 39),
                   Finding::Kind::kKernelNotCompleted, {2},
                   "all ranks entered AllReduce seq 77 (4 KiB float sum); rank 2's kernel has not "
                   "completed after 40 s (ranks 0-1,3 completed it)");
}

TEST(Verdict, KernelThatHasNotStarted) {
  expectOneFinding(lastCallOnEveryRank(4, 9, collective(TraceKind::kAllReduce, 1024),
                                       [](int rank) { return rank == 1 ? CallState::kEnqueued : CallState::kStarted; },
                                       40),
                   Finding::Kind::kKernelNotStarted, {1},
                   "all ranks entered AllReduce seq 10 (4 KiB float sum); rank 1's kernel has not started "
                   "after 40 s (work queued before it on its stream has not finished), ranks 0,2-3 have "
                   "started and wait for it");
}

// A rank whose launch failed returned an error; its peers' kernels wait for one that never runs.
TEST(Verdict, ALaunchThatFailedOnOneRank) {
  expectOneFinding(lastCallOnEveryRank(4, 11, collective(TraceKind::kAllReduce, 1024),
                                       [](int rank) { return rank == 1 ? CallState::kFailed : CallState::kStarted; },
                                       40),
                   Finding::Kind::kLaunchFailed, {1},
                   "all ranks entered AllReduce seq 12 (4 KiB float sum); rank 1's launch failed there (the call "
                   "returned an error to the application), and ranks 0,2-3 have waited 40 s for it");
}

TEST(Verdict, ALaunchThatFailedIsNamedAsTheLastCallOfARankBehind) {
  // The words for a rank whose last call failed while the other went on (how rank 0 got past
  // seq 3 does not matter here: the not-called rule reads only each rank's last call).
  expectOneFinding(ranksPastOneLaggard(2, 2, 1, CallState::kFailed, 30, 20), Finding::Kind::kNotCalled, {1},
                   "rank 1 (host h0, pid 1001, GPU 1) has not called AllReduce seq 4 (4 KiB float sum) that "
                   "rank 0 waits in; its last call, AllReduce seq 3, failed to launch 30 s ago (the call "
                   "returned an error there)");
}

TEST(Verdict, NoKernelCompletedAnywhere) {
  expectOneFinding(lastCallOnEveryRank(2, 2, collective(TraceKind::kReduceScatter, 256),
                                       [](int) { return CallState::kStarted; }, 12),
                   Finding::Kind::kKernelsStuck, {0, 1},
                   "all ranks entered ReduceScatter seq 3 (2 KiB float sum) and started their kernels; "
                   "none has completed after 12 s (a kernel or a link between GPUs is stuck)");
}

TEST(Verdict, AStalledKernelThatKeepsItsRankFromTheNextCall) {
  // Rank 2's kernel for seq 5 started and never completed; the others finished it and wait in 6.
  expectOneFinding(ranksPastOneLaggard(3, 4, 2, CallState::kStarted, 20, 19), Finding::Kind::kNotCalled, {2},
                   "rank 2 (host h0, pid 1002, GPU 2) has not called AllReduce seq 6 (4 KiB float sum) that "
                   "ranks 0-1 wait in; its last call, AllReduce seq 5, started 20 s ago and has not completed");
}

TEST(Verdict, ManyLateRanksAreSummed) {
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < 20; ++rank) {
    SnapshotBuilder builder(kComm, rank, 20);
    builder.history(3);
    if (rank < 10) builder.call(collective(TraceKind::kAllReduce, 8), CallState::kStarted, 60);
    ranks.push_back(reachable(builder.build()));
  }
  const std::vector<Finding> findings = analyzeHang(commReport(ranks));
  ASSERT_EQ(findings.size(), 9u);
  EXPECT_EQ(findings[8].ranks, (std::vector<int>{18, 19}));
  EXPECT_EQ(findings[8].text, "ranks 18-19 have not called AllReduce seq 4 (32 B float sum) either");
}

TEST(Verdict, PointToPointWait) {
  TraceCall recv = collective(TraceKind::kRecv, 256);
  recv.peer = 1;
  TraceCall send = collective(TraceKind::kSend, 256);
  send.peer = 2;
  std::vector<RankReport> ranks = {
      reachable(SnapshotBuilder(kComm, 0, 3).history(4).call(recv, CallState::kStarted, 30).build()),
      reachable(SnapshotBuilder(kComm, 1, 3).history(4).call(send, CallState::kCompleted, 29, 28).build()),
      reachable(SnapshotBuilder(kComm, 2, 3).history(4).build())};
  expectOneFinding(ranks, Finding::Kind::kP2pWait, {0},
                   "rank 0 (host h0, pid 1000, GPU 0) has waited 30 s in Recv(256 x float, from rank 1) (p2p "
                   "seq 1); rank 1's last call, Send(256 x float, to rank 2) p2p seq 1, completed 28 s ago");
}

// A split communicator: ranks are the split's; identities still name the processes. Each
// communicator is judged on its own.
TEST(Verdict, SplitCommunicatorsAreJudgedApart) {
  const uint64_t world = 1, split = 2;
  std::vector<RankReport> worldRanks;
  for (int rank = 0; rank < 4; ++rank) worldRanks.push_back(reachable(SnapshotBuilder(world, rank, 4).history(50).build()));
  EXPECT_TRUE(analyzeHang(commReport(worldRanks)).empty());

  // Split of world ranks {0, 2}: split rank 1 is the process of world rank 2.
  ProgressSnapshot first = SnapshotBuilder(split, 0, 2)
                               .history(9)
                               .call(collective(TraceKind::kAllReduce, 16), CallState::kStarted, 50)
                               .build();
  ProgressSnapshot second = SnapshotBuilder(split, 1, 2).history(9).build();
  second.identity.pid = 1002;
  second.identity.cudaDev = 2;
  expectOneFinding({reachable(first), reachable(second)}, Finding::Kind::kNotCalled, {1},
                   "rank 1 (host h0, pid 1002, GPU 2) has not called AllReduce seq 10 (64 B float sum) that "
                   "rank 0 waits in; its last call, AllReduce seq 9, completed 100 s ago");
}

TEST(Verdict, KeysIgnoreAges) {
  Finding a;
  a.kind = Finding::Kind::kNotCalled;
  a.seq = 4;
  a.ranks = {3};
  a.text = "waited 10 s";
  Finding b = a;
  b.text = "waited 20 s";
  EXPECT_EQ(a.key(), b.key());
  b.seq = 5;
  EXPECT_NE(a.key(), b.key());
}

}  // namespace
}  // namespace flashccl
