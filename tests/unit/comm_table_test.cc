#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "runtime/comm_context.h"
#include "runtime/comm_lifecycle.h"
#include "runtime/comm_stats.h"
#include "runtime/comm_table.h"
#include "select/selector.h"

namespace flashccl {
namespace {

ncclComm_t fakeComm(uintptr_t n) { return reinterpret_cast<ncclComm_t>(0x1000 + n * 64); }

std::unique_ptr<CommContext> makeContext(ncclComm_t comm, int rank = 0) {
  return std::make_unique<CommContext>(comm, rank, 2, -1, true);
}

TEST(CommTable, InsertFindRemove) {
  CommTable& table = CommTable::instance();
  const size_t before = table.size();
  ncclComm_t a = fakeComm(1), b = fakeComm(2);
  EXPECT_EQ(table.find(a), nullptr);
  table.insert(makeContext(a));
  CommContext* ctxA = table.find(a);
  ASSERT_NE(ctxA, nullptr);
  EXPECT_EQ(ctxA->comm, a);
  EXPECT_EQ(table.find(a), ctxA);  // cached
  EXPECT_EQ(table.find(b), nullptr);
  table.insert(makeContext(b));
  EXPECT_NE(table.find(b), nullptr);  // a cached miss must not hide a later insert
  EXPECT_EQ(table.size(), before + 2);

  std::unique_ptr<CommContext> removed = table.remove(a);
  EXPECT_EQ(removed.get(), ctxA);
  EXPECT_EQ(table.find(a), nullptr);  // a cached hit must not outlive the removal
  EXPECT_EQ(table.remove(a), nullptr);
  table.remove(b);
  EXPECT_EQ(table.size(), before);
}

TEST(CommTable, ReusedAddressReplacesTheStaleContext) {
  CommTable& table = CommTable::instance();
  ncclComm_t a = fakeComm(3);
  table.insert(makeContext(a, 0));
  EXPECT_EQ(table.find(a)->rank, 0);
  table.insert(makeContext(a, 1));
  EXPECT_EQ(table.find(a)->rank, 1);
  table.remove(a);
}

TEST(CommTable, CachesArePerThread) {
  CommTable& table = CommTable::instance();
  ncclComm_t a = fakeComm(4);
  table.insert(makeContext(a));
  std::atomic<int> found{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        if (table.find(a) != nullptr) ++found;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(found.load(), 4000);
  table.remove(a);
  std::thread([&] { EXPECT_EQ(table.find(a), nullptr); }).join();
}

TEST(CommStats, CountsBySlotAndSummarises) {
  CommStats stats;
  static const char* const kAlgo = "allreduce_oneshot";
  stats.countIntercepted(kAlgo);
  stats.countIntercepted(kAlgo);
  stats.countForwarded(reason::kNoRow);
  stats.countForwarded(reason::kZeroCount);
  stats.countForwarded(reason::kNoRow);
  EXPECT_EQ(stats.intercepted(kAlgo), 2u);
  EXPECT_EQ(stats.forwarded(reason::kNoRow), 2u);
  EXPECT_EQ(stats.totalIntercepted(), 2u);
  EXPECT_EQ(stats.totalForwarded(), 3u);
  EXPECT_EQ(stats.summary(),
            "intercepted 2 (allreduce_oneshot 2); forwarded 3 (no selection row for this size 2, "
            "zero count 1)");
  EXPECT_EQ(CommStats().summary(), "intercepted 0; forwarded 0");
}

TEST(CommStats, OverflowLandsInOther) {
  CommStats stats;
  static char keys[40][8];
  for (int i = 0; i < 40; ++i) {
    snprintf(keys[i], sizeof(keys[i]), "k%d", i);
    stats.countForwarded(keys[i]);
  }
  EXPECT_EQ(stats.totalForwarded(), 40u);
  EXPECT_NE(stats.summary().find("other 17"), std::string::npos) << stats.summary();
}

TEST(CommStats, ConcurrentCountsAddUp) {
  CommStats stats;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) stats.countForwarded(i % 2 ? reason::kNoRow : reason::kNested);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(stats.forwarded(reason::kNoRow), 20000u);
  EXPECT_EQ(stats.forwarded(reason::kNested), 20000u);
}

TEST(CommContext, PreMulSumOps) {
  CommContext ctx(fakeComm(5), 0, 2, -1, true);
  PreMulSumOp op;
  op.op = static_cast<ncclRedOp_t>(ncclNumOps);
  op.hostScalar = 42;
  ctx.redOps().add(op);
  PreMulSumOp out;
  ASSERT_TRUE(ctx.redOps().find(op.op, &out));
  EXPECT_EQ(out.hostScalar, 42u);
  op.hostScalar = 7;
  ctx.redOps().add(op);  // the same value again (NCCL reuses destroyed ops): replaced
  ASSERT_TRUE(ctx.redOps().find(op.op, &out));
  EXPECT_EQ(out.hostScalar, 7u);
  ctx.redOps().remove(op.op);
  EXPECT_FALSE(ctx.redOps().find(op.op, nullptr));
}

TEST(CommContext, DisableKeepsTheFirstReason) {
  CommContext ctx(fakeComm(6), 0, 2, -1, true);
  EXPECT_EQ(ctx.state(), CommContext::State::kPending);
  ctx.disable("first");
  ctx.disable("second");
  EXPECT_EQ(ctx.state(), CommContext::State::kDisabled);
  EXPECT_EQ(ctx.disabledReason(), "first");
  EXPECT_EQ(ctx.asyncError(), ncclSuccess);  // no peers attached
}

TEST(CommContext, IdentityFilledLater) {
  CommContext ctx(fakeComm(7), -1, 0, -1, false);
  EXPECT_FALSE(ctx.hasIdentity());
  ctx.setIdentity(3, 4, 1);
  EXPECT_TRUE(ctx.hasIdentity());
  EXPECT_EQ(ctx.rank, 3);
  EXPECT_EQ(ctx.nranks, 4);
  EXPECT_EQ(ctx.cudaDev, 1);
}

TEST(CommLifecycle, BlockingFromConfig) {
  unsetenv("NCCL_COMM_BLOCKING");
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  EXPECT_TRUE(isBlockingConfig(nullptr, nullptr));
  EXPECT_TRUE(isBlockingConfig(&config, nullptr));  // undefined: NCCL's default, blocking
  config.blocking = 0;
  EXPECT_FALSE(isBlockingConfig(&config, nullptr));
  CommContext parent(fakeComm(8), 0, 2, -1, /*blocking=*/false);
  EXPECT_FALSE(isBlockingConfig(nullptr, &parent));  // split/shrink inherit
  setenv("NCCL_COMM_BLOCKING", "1", 1);
  EXPECT_TRUE(isBlockingConfig(&config, nullptr));  // NCCL applies the variable over the config
  unsetenv("NCCL_COMM_BLOCKING");
}

}  // namespace
}  // namespace flashccl
