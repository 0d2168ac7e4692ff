// Inside ncclGroupStart/End, calls of algorithms across nodes are numbered (and recorded in the
// flight recorder) with the group but launched only after NCCL's group has ended: their own NCCL
// calls would otherwise join the group and be enqueued at its end, after the events that must
// follow them.
#include <gtest/gtest.h>

#include <memory>

#include <cuda_runtime_api.h>

#include "algo/algorithm.h"
#include "runtime/comm_context.h"
#include "runtime/comm_launch.h"
#include "runtime/comm_trace.h"
#include "runtime/grouped_calls.h"

namespace flashccl {
namespace {

class CountingStub : public Algorithm {
 public:
  explicit CountingStub(bool acrossNodes, ncclResult_t result = ncclSuccess)
      : acrossNodes_(acrossNodes), result_(result) {}
  const char* name() const override { return acrossNodes_ ? "counting_across_nodes" : "counting_inside_node"; }
  CollKind kind() const override { return CollKind::kAllReduce; }
  bool spansNodes() const override { return acrossNodes_; }
  bool supports(const CollCall&, const CommView&) const override { return true; }
  ncclResult_t launch(const CollCall&, const CommView&) override {
    ++launches;
    return result_;
  }
  int launches = 0;

 private:
  bool acrossNodes_;
  ncclResult_t result_;
};

std::unique_ptr<CommContext> readyContext(uintptr_t id) {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;  // no GPU: nothing to switch to
  auto ctx = std::make_unique<CommContext>(reinterpret_cast<ncclComm_t>(id), 0, 2, device, true);
  ctx->markReady();
  return ctx;
}

TEST(GroupedCalls, CallsAcrossNodesLaunchAfterNcclsGroup) {
  CountingStub inside(false), across(true);
  auto one = readyContext(0x1000);
  auto two = readyContext(0x2000);
  float data[4];
  const CollCall call{CollKind::kAllReduce, data, data, 4, ncclFloat32, ncclSum, 0, nullptr, nullptr};
  queueGroupedLaunch(two.get(), call, &across, 1);
  queueGroupedLaunch(one.get(), call, &inside, 1);
  queueGroupedForward(two.get(), traceCallOf(call));
  queueGroupedLaunch(two.get(), call, &across, 1);

  EXPECT_EQ(runGroupedCalls(), ncclSuccess);
  EXPECT_EQ(inside.launches, 1);
  EXPECT_EQ(across.launches, 0);
  // Every call has its place in its communicator's sequence already, in call order.
  EXPECT_EQ(one->callSequence, 1u);
  EXPECT_EQ(two->callSequence, 3u);

  EXPECT_EQ(runGroupedCallsAcrossNodes(), ncclSuccess);
  EXPECT_EQ(across.launches, 2);
  EXPECT_EQ(runGroupedCallsAcrossNodes(), ncclSuccess);  // nothing left
  EXPECT_EQ(across.launches, 2);
}

TEST(GroupedCalls, CallsAcrossNodesAreRecordedInCallOrder) {
  // The fault locator compares ranks by the order of their calls: a call across nodes launched
  // after NCCL's group must still sit where the application made it, and be recorded once.
  CountingStub across(true);
  auto ctx = readyContext(0x4000);
  ctx->trace = CommTrace::make(*ctx);
  ASSERT_NE(ctx->trace, nullptr) << "FLASHCCL_TRACE=0 in the test's environment?";
  float data[4];
  const CollCall call{CollKind::kAllReduce, data, data, 4, ncclFloat32, ncclSum, 0, nullptr, nullptr};
  TraceCall forwarded = traceCallOf(call);
  forwarded.kind = TraceKind::kBroadcast;
  forwarded.grouped = true;
  queueGroupedLaunch(ctx.get(), call, &across, 1);
  queueGroupedForward(ctx.get(), forwarded);
  queueGroupedLaunch(ctx.get(), call, &across, 1);

  EXPECT_EQ(runGroupedCalls(), ncclSuccess);
  EXPECT_EQ(runGroupedCallsAcrossNodes(), ncclSuccess);
  EXPECT_EQ(across.launches, 2);
  const std::vector<RecordedCall> recorded = ctx->trace->recorder().tail(16);
  ASSERT_EQ(recorded.size(), 3u);
  EXPECT_EQ(recorded[0].call.kind, TraceKind::kAllReduce);
  EXPECT_STREQ(recorded[0].call.algorithm, "counting_across_nodes");
  EXPECT_EQ(recorded[0].call.launch, 1u);
  EXPECT_EQ(recorded[1].call.kind, TraceKind::kBroadcast);
  EXPECT_EQ(recorded[1].call.algorithm, nullptr);
  EXPECT_EQ(recorded[2].call.launch, 3u);
  for (size_t i = 0; i < recorded.size(); ++i) {
    EXPECT_EQ(recorded[i].seq, i + 1) << i;  // the recorder's numbers are the call sequence's
    EXPECT_TRUE(recorded[i].call.grouped) << i;
    EXPECT_FALSE(recorded[i].call.captured) << i;
  }
}

// A launch that fails returns its error and stays in the recorder, in its place, as failed: its
// peers wait for it, and their hang verdict must say that it failed rather than that it "has not
// started" (recorded before the launch for a grouped call across nodes, after it otherwise).
TEST(GroupedCalls, ALaunchThatFailsIsRecordedAsFailed) {
  CountingStub failing(true, ncclUnhandledCudaError), inside(false, ncclUnhandledCudaError);
  auto ctx = readyContext(0x5000);
  ctx->trace = CommTrace::make(*ctx);
  ASSERT_NE(ctx->trace, nullptr) << "FLASHCCL_TRACE=0 in the test's environment?";
  float data[4];
  const CollCall call{CollKind::kAllReduce, data, data, 4, ncclFloat32, ncclSum, 0, nullptr, nullptr};
  queueGroupedLaunch(ctx.get(), call, &failing, 1);
  EXPECT_EQ(runGroupedCalls(), ncclSuccess);
  EXPECT_EQ(runGroupedCallsAcrossNodes(), ncclUnhandledCudaError);
  EXPECT_EQ(launchOnCommunicator(ctx.get(), call, &inside, 1, ++ctx->callSequence), ncclUnhandledCudaError);
  const std::vector<RecordedCall> recorded = ctx->trace->recorder().tail(16);
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_STREQ(recorded[0].call.algorithm, "counting_across_nodes");
  EXPECT_STREQ(recorded[1].call.algorithm, "counting_inside_node");
  for (size_t i = 0; i < recorded.size(); ++i) {
    EXPECT_EQ(recorded[i].state, CallState::kFailed) << i;
    EXPECT_EQ(recorded[i].seq, i + 1) << i;
    EXPECT_EQ(recorded[i].call.launch, i + 1) << i;
  }
  EXPECT_STREQ(ctx->lastAlgorithm.load(), "NCCL") << "a failed launch is not the algorithm that ran";
}

TEST(GroupedCalls, SimulatedGroupLaunchesNothingAcrossNodes) {
  CountingStub across(true);
  auto ctx = readyContext(0x3000);
  float data[4];
  const CollCall call{CollKind::kAllReduce, data, data, 4, ncclFloat32, ncclSum, 0, nullptr, nullptr};
  queueGroupedLaunch(ctx.get(), call, &across, 1);
  dropGroupedCalls();
  EXPECT_EQ(runGroupedCalls(), ncclSuccess);
  EXPECT_EQ(runGroupedCallsAcrossNodes(), ncclSuccess);
  EXPECT_EQ(across.launches, 0);
  EXPECT_EQ(ctx->callSequence, 0u);
}

}  // namespace
}  // namespace flashccl
