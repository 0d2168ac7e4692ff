// The intercepted path of dispatchCollective, in process, with a stand-in algorithm. (Forwarded
// paths need a real or fake NCCL behind them: shim_lifecycle_test.cc runs those in a child.)
#include <gtest/gtest.h>

#include <string>

#include "algo/algorithm.h"
#include "runtime/comm_context.h"
#include "runtime/comm_table.h"
#include "runtime/dispatch.h"
#include "base/thread_state.h"
#include "select/selector.h"

namespace flashccl {
namespace {

class CountingAlgorithm : public Algorithm {
 public:
  const char* name() const override { return "counting_allreduce"; }
  CollKind kind() const override { return CollKind::kAllReduce; }
  bool supports(const CollCall&, const CommView&) const override { return true; }
  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    ++launches;
    lastCount = call.count;
    return ncclSuccess;
  }
  int launches = 0;
  size_t lastCount = 0;
};

CountingAlgorithm gCounting;

std::shared_ptr<Algorithm> resolveCounting(const std::string& name, int, int, std::string* error) {
  if (name == gCounting.name()) return unownedAlgorithm(&gCounting);
  *error = "unknown";
  return nullptr;
}

TEST(Dispatch, ReadyCommunicatorRunsTheChosenAlgorithm) {
  ncclComm_t comm = reinterpret_cast<ncclComm_t>(0xd15a7c4);
  // The current device (-1 without a GPU): dispatch must not need to switch devices.
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  auto owned = std::make_unique<CommContext>(comm, 0, 2, device, true);
  CommContext* ctx = owned.get();
  SelectionTable table;
  SelectionRow r;
  r.kind = CollKind::kAllReduce;
  r.algorithm = gCounting.name();
  r.source = "test";
  table.rows.push_back(r);
  std::string warnings;
  ctx->attachSelector(Selector::build(table, "", 2, 1, resolveCounting, &warnings));
  ctx->markReady();
  CommTable::instance().insert(std::move(owned));

  float data[4];
  CollCall call{CollKind::kAllReduce, data, data, 4, ncclFloat32, ncclSum, 0, comm, nullptr};
  EXPECT_EQ(dispatchCollective(call), ncclSuccess);
  call.stream = cudaStreamPerThread;  // another stream: ordered after the previous launch
  EXPECT_EQ(dispatchCollective(call), ncclSuccess);
  EXPECT_EQ(gCounting.launches, 2);
  EXPECT_EQ(gCounting.lastCount, 4u);
  EXPECT_EQ(ctx->stats.intercepted(gCounting.name()), 2u);
  EXPECT_STREQ(ctx->lastAlgorithm.load(), "counting_allreduce");
  EXPECT_EQ(ctx->stats.summary(), "intercepted 2 (counting_allreduce 2); forwarded 0");
  CommTable::instance().remove(comm);
}

TEST(Dispatch, ForwardScopeMarksNestedCalls) {
  EXPECT_FALSE(isNestedCall());
  {
    ForwardScope outer;
    EXPECT_TRUE(isNestedCall());
    {
      ForwardScope inner;
      EXPECT_EQ(threadState().forwardDepth, 2);
    }
  }
  EXPECT_FALSE(isNestedCall());
}

// The parent of ncclCommShrink(NCCL_SHRINK_ABORT): the watchdog failed it when a peer died;
// once the survivors have their child it reports no error of ours, as NCCL's parent reports
// none (PyTorch's shrink_group waits on the parent and gave up on our ncclRemoteError).
TEST(CommContextErrors, AShrunkParentReportsNoErrorOfOurs) {
  CommContext ctx(reinterpret_cast<ncclComm_t>(0x5e771e), 0, 3, -1, true);
  EXPECT_EQ(ctx.asyncError(), ncclSuccess);
  ctx.failFromWatchdog(ncclRemoteError);
  EXPECT_EQ(ctx.asyncError(), ncclRemoteError);
  ctx.settleAfterShrink();
  EXPECT_EQ(ctx.asyncError(), ncclSuccess);
  ctx.failFromWatchdog(ncclRemoteError);  // a verdict already on its way changes nothing
  EXPECT_EQ(ctx.asyncError(), ncclSuccess);
}

}  // namespace
}  // namespace flashccl
