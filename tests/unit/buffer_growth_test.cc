// Memory grows with use (docs/design.md, "Memory grows with use"): which calls wait for the full
// buffer, what each rank votes, the verdict every rank reaches from the votes, and the host board
// the ranks of a node vote through.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "algo/algorithm.h"
#include "base/config.h"
#include "runtime/buffer_growth.h"
#include "runtime/comm_context.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"
#include "topo/selection_table.h"
#include "transport/p2p/growth_board.h"
#include "transport/p2p/memory_account.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

CollCall callOf(CollKind kind, size_t count, ncclDataType_t dtype) {
  CollCall call{};
  call.kind = kind;
  call.count = count;
  call.dtype = dtype;
  return call;
}

TEST(BufferGrowth, LargestBufferIsWhatIsComparedWithTheSmallSize) {
  EXPECT_EQ(largestBufferBytes(callOf(CollKind::kAllReduce, 1024, ncclFloat32), 4), 4096u);
  // AllGather's output and ReduceScatter's input hold every rank's block.
  EXPECT_EQ(largestBufferBytes(callOf(CollKind::kAllGather, 1024, ncclFloat32), 4), 4u * 4096);
  EXPECT_EQ(largestBufferBytes(callOf(CollKind::kReduceScatter, 1024, ncclBfloat16), 8), 8u * 2048);
}

TEST(BufferGrowth, OnlyCallsAboveTheSmallSizeOnASmallBufferWait) {
  BufferGrowth growth;
  // Mapped full at set-up: nothing waits.
  EXPECT_FALSE(growth.callNeedsGrowth(callOf(CollKind::kAllReduce, size_t(8) << 20, ncclFloat32), 2));
  growth.startSmall(64 << 10, BufferLayout{}, nullptr, 0);
  EXPECT_EQ(growth.stage(), BufferGrowth::Stage::kSmall);
  EXPECT_FALSE(growth.callNeedsGrowth(callOf(CollKind::kAllReduce, 16 << 10, ncclFloat32), 2));  // 64 KiB
  EXPECT_TRUE(growth.callNeedsGrowth(callOf(CollKind::kAllReduce, (16 << 10) + 1, ncclFloat32), 2));
  EXPECT_FALSE(growth.callNeedsGrowth(callOf(CollKind::kAllGather, 8 << 10, ncclFloat32), 2));  // 2 x 32 KiB
  EXPECT_TRUE(growth.callNeedsGrowth(callOf(CollKind::kAllGather, 8 << 10, ncclFloat32), 4));   // 4 x 32 KiB
}

SelectionRow rowOf(size_t minBytes, size_t maxBytes, const char* algorithm) {
  SelectionRow r;
  r.kind = CollKind::kAllReduce;
  r.minBytes = minBytes;
  r.maxBytes = maxBytes;
  r.algorithm = algorithm;
  r.source = std::string("test:") + algorithm;
  return r;
}

// A calibrated table (issue 24) says allreduce_oneshot for 64 KiB-1 MiB and nccl for the rest. On
// the small buffer a 256 KiB call does not fit oneshot's LL slots, and the selection would hand
// it to the nccl row: the grown view routes it as the full buffer will, so the buffer grows and
// the row's algorithm runs it (the GPU check found the call on NCCL before this view).
TEST(BufferGrowth, ACallAboveTheSmallSizeIsRoutedAsOnTheFullBuffer) {
  const BufferLayoutRequest request = peerLayoutRequest(Config::get(), 2);
  std::unique_ptr<PeerMemory> full = PeerMemory::describeOnly(0, 2, 132, request);
  ASSERT_NE(full, nullptr);
  BufferLayout small{};
  const char* why = nullptr;
  ASSERT_TRUE(computeSmallLayout(full->device().layout, 2, 64 << 10, &small, &why)) << why;

  CommContext ctx(reinterpret_cast<ncclComm_t>(0x5a11), 0, 2, -1, true);
  ctx.attachPeers(PeerMemory::describeGrown(full->device(), small, request.bufferBytes));
  ctx.buffer.startSmall(64 << 10, full->device().layout, nullptr, 0);
  SelectionTable table;
  table.rows = {rowOf(64 << 10, 1 << 20, "allreduce_oneshot"), rowOf(0, 0, "nccl")};
  std::string warnings;
  std::unique_ptr<Selector> selector = Selector::build(table, "", 2, 1, resolveAlgorithm, &warnings);
  ASSERT_TRUE(warnings.empty()) << warnings;

  static float data[1];
  const CollCall call{CollKind::kAllReduce, data, data, (256 << 10) / sizeof(float), ncclFloat32, ncclSum, 0,
                      ctx.comm, nullptr};
  ASSERT_TRUE(ctx.buffer.callNeedsGrowth(call, 2));
  EXPECT_EQ(selector->choose(call, ctx).algorithm, nullptr);  // the small slots: the nccl row
  const CommView* grown = ctx.buffer.grownView(&ctx);
  ASSERT_NE(grown, nullptr);
  const Plan onFull = selector->choose(call, *grown);
  ASSERT_NE(onFull.algorithm, nullptr);
  EXPECT_STREQ(onFull.algorithm->name(), "allreduce_oneshot");
  EXPECT_EQ(ctx.buffer.grownView(&ctx), grown);  // made once

  // Above the row's band the nccl row takes it on either buffer: no growth for it.
  const CollCall large{CollKind::kAllReduce, data, data, (4 << 20) / sizeof(float), ncclFloat32, ncclSum, 0,
                       ctx.comm, nullptr};
  EXPECT_EQ(selector->choose(large, *grown).algorithm, nullptr);
}

TEST(BufferGrowth, InsideAGroupTheCallGoesToNcclWithoutWaitingForPeers) {
  BufferGrowth growth;
  growth.startSmall(64 << 10, BufferLayout{}, nullptr, 0);
  // No communicator is needed: a grouped call never reaches the board (one thread may be
  // driving the peers, who would then never post).
  const char* why = growth.growForCall(nullptr, /*inGroup=*/true, /*capturing=*/false);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("ncclGroupStart/End"), std::string::npos) << why;
  EXPECT_EQ(growth.stage(), BufferGrowth::Stage::kSmall);  // a later call outside a group grows it
}

TEST(BufferGrowth, VoteFromCaptureAndBudget) {
  const size_t mib = size_t(1) << 20;
  EXPECT_EQ(voteFor(false, 0, 64 * mib, 1024 * mib), kVoteGrow);
  EXPECT_EQ(voteFor(false, 960 * mib, 64 * mib, 1024 * mib), kVoteGrow);  // exactly the limit
  EXPECT_EQ(voteFor(false, 961 * mib, 64 * mib, 1024 * mib), kVoteOverBudget);
  EXPECT_EQ(voteFor(false, 0, 64 * mib, 0), kVoteOverBudget);  // FLASHCCL_MEMORY_LIMIT=0
  EXPECT_EQ(voteFor(true, 0, 64 * mib, 1024 * mib), kVoteNotNow);
  EXPECT_EQ(voteFor(true, 2048 * mib, 64 * mib, 1024 * mib), kVoteNotNow);  // asks again when not capturing
  // No overflow near the top of size_t.
  EXPECT_FALSE(withinMemoryLimit(SIZE_MAX - 8, 64, SIZE_MAX));
  EXPECT_FALSE(withinMemoryLimit(2048, 1, 1024));
}

TEST(BufferGrowth, EveryRankReachesOneVerdictFromTheSameVotes) {
  const GrowthDecision all = decideGrowth({kVoteGrow, kVoteGrow, kVoteGrow}, {"", "", ""});
  EXPECT_TRUE(all.grow);
  EXPECT_FALSE(all.stopTrying);
  EXPECT_TRUE(all.why.empty());

  // A capturing rank: nobody grows now, everybody asks again at the next large call.
  const GrowthDecision later = decideGrowth({kVoteGrow, kVoteNotNow}, {"", "its stream is being captured"});
  EXPECT_FALSE(later.grow);
  EXPECT_FALSE(later.stopTrying);
  EXPECT_EQ(later.why, "rank 1: its stream is being captured");

  // One rank over its budget keeps every rank's large calls on NCCL, even with another capturing.
  const GrowthDecision budget =
      decideGrowth({kVoteNotNow, kVoteGrow, kVoteOverBudget}, {"captured", "", "would pass FLASHCCL_MEMORY_LIMIT"});
  EXPECT_FALSE(budget.grow);
  EXPECT_TRUE(budget.stopTrying);
  EXPECT_EQ(budget.why, "rank 2: would pass FLASHCCL_MEMORY_LIMIT");

  const GrowthDecision failed = decideGrowth({kVoteFailed, kVoteGrow}, {"out of memory", ""});
  EXPECT_TRUE(failed.stopTrying);
  EXPECT_FALSE(failed.grow);
  // A vote no flashccl sends (a rank running something else) is a no, for good.
  EXPECT_TRUE(decideGrowth({kVoteGrow, 77}, {"", ""}).stopTrying);
  EXPECT_FALSE(decideGrowth({}, {}).grow);
}

TEST(MemoryAccount, CountsWhatIsHeldUntilItGoes) {
  const int device = 63;
  const size_t before = peerBytesAllocated(device);
  {
    PeerBytesHeld a(device, 1000);
    PeerBytesHeld b(device, 24);
    EXPECT_EQ(peerBytesAllocated(device), before + 1024);
  }
  EXPECT_EQ(peerBytesAllocated(device), before);
  PeerBytesHeld outside(-1, 5);  // no such device: counted nowhere, no crash
  EXPECT_EQ(peerBytesAllocated(-1), 0u);
}

GrowthPost postOf(int vote, const char* reason) {
  GrowthPost post;
  post.vote = vote;
  std::snprintf(post.reason, sizeof(post.reason), "%s", reason);
  return post;
}

// Two processes, as two ranks of a node: rounds in order, each rank sees the other's post.
TEST(GrowthBoard, TwoProcessesTradePostsRoundByRound) {
  const std::string name = GrowthBoard::newName();
  std::string why;
  std::unique_ptr<GrowthBoard> board = GrowthBoard::open(name, 2, &why);
  ASSERT_TRUE(board) << why;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string childWhy;
    std::unique_ptr<GrowthBoard> mine = GrowthBoard::open(name, 2, &childWhy);
    int status = mine ? 0 : 10;
    for (uint64_t round = 1; round <= 50 && status == 0; ++round) {
      mine->post(1, round, postOf(static_cast<int>(round), "child"));
      std::vector<GrowthPost> posts;
      if (!mine->collect(round, &posts, [] { return false; }, 20.0, &childWhy)) status = 11;
      else if (posts[0].vote != static_cast<int>(100 + round) || std::strcmp(posts[0].reason, "parent") != 0) status = 12;
    }
    _exit(status);
  }
  for (uint64_t round = 1; round <= 50; ++round) {
    board->post(0, round, postOf(static_cast<int>(100 + round), "parent"));
    std::vector<GrowthPost> posts;
    ASSERT_TRUE(board->collect(round, &posts, [] { return false; }, 20.0, &why)) << why;
    ASSERT_EQ(posts.size(), 2u);
    EXPECT_EQ(posts[1].vote, static_cast<int>(round));
    EXPECT_STREQ(posts[1].reason, "child");
  }
  int status = -1;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  GrowthBoard::unlink(name);
}

TEST(GrowthBoard, AWaitEndsOnAbortOrTimeoutNamingTheMissingRank) {
  const std::string name = GrowthBoard::newName();
  std::string why;
  std::unique_ptr<GrowthBoard> board = GrowthBoard::open(name, 3, &why);
  ASSERT_TRUE(board) << why;
  GrowthBoard::unlink(name);  // the mapping stays
  board->post(0, 1, postOf(kVoteGrow, ""));
  board->post(2, 1, postOf(kVoteGrow, ""));
  std::vector<GrowthPost> posts;
  EXPECT_FALSE(board->collect(1, &posts, [] { return false; }, 0.05, &why));
  EXPECT_NE(why.find("rank 1"), std::string::npos) << why;
  std::atomic<bool> aborted{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    aborted = true;
  });
  EXPECT_FALSE(board->collect(1, &posts, [&] { return aborted.load(); }, 30.0, &why));
  stopper.join();
  EXPECT_NE(why.find("aborted"), std::string::npos) << why;
  // A post of another round is not this round's.
  board->post(1, 3, postOf(kVoteGrow, ""));
  EXPECT_FALSE(board->collect(1, &posts, [] { return false; }, 0.05, &why));
}

TEST(GrowthBoard, AnUnterminatedReasonFromAPeerIsCutNotOverrun) {
  const std::string name = GrowthBoard::newName();
  std::string why;
  std::unique_ptr<GrowthBoard> board = GrowthBoard::open(name, 1, &why);
  ASSERT_TRUE(board) << why;
  GrowthBoard::unlink(name);
  GrowthPost garbage;
  std::memset(&garbage, 'x', sizeof(garbage));
  board->post(0, 1, garbage);
  std::vector<GrowthPost> posts;
  ASSERT_TRUE(board->collect(1, &posts, [] { return false; }, 1.0, &why));
  EXPECT_EQ(std::strlen(posts[0].reason), sizeof(posts[0].reason) - 1);
}

TEST(GrowthBoard, BadNamesAndRankCountsAreRefused) {
  std::string why;
  EXPECT_FALSE(GrowthBoard::open("no-slash", 2, &why));
  EXPECT_FALSE(GrowthBoard::open(GrowthBoard::newName(), 0, &why));
  EXPECT_FALSE(GrowthBoard::open(GrowthBoard::newName(), kMaxPeerRanks + 1, &why));
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace flashccl
