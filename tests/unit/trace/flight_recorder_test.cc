#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "trace/flight_recorder.h"
#include "trace/trace_clock.h"

namespace flashccl {
namespace {

TraceCall allReduce(uint64_t count, uint64_t launch = 0) {
  TraceCall call;
  call.kind = TraceKind::kAllReduce;
  call.count = count;
  call.dtype = ncclFloat32;
  call.op = ncclSum;
  call.launch = launch;
  call.algorithm = launch ? "allreduce_oneshot" : nullptr;
  return call;
}

TraceCall p2p(TraceKind kind, int peer) {
  TraceCall call;
  call.kind = kind;
  call.count = 16;
  call.dtype = ncclInt8;
  call.peer = peer;
  return call;
}

TEST(FlightRecorder, NumbersCollectivesAndPointToPointApart) {
  FlightRecorder recorder(16);
  TraceCall start;
  start.kind = TraceKind::kGroupStart;
  EXPECT_EQ(recorder.record(start).seq, 0u);
  EXPECT_EQ(recorder.record(allReduce(8)).seq, 1u);
  EXPECT_EQ(recorder.record(p2p(TraceKind::kSend, 1)).seq, 1u);
  EXPECT_EQ(recorder.record(p2p(TraceKind::kRecv, 1)).seq, 2u);
  TraceCall bcast = allReduce(8);
  bcast.kind = TraceKind::kBroadcast;
  bcast.peer = 0;
  const RecordTicket ticket = recorder.record(bcast);
  EXPECT_EQ(ticket.seq, 2u);
  EXPECT_EQ(ticket.recordId, 4u);
  EXPECT_EQ(recorder.lastCollectiveSeq(), 2u);
  EXPECT_EQ(recorder.lastP2pSeq(), 2u);
  EXPECT_EQ(recorder.recorded(), 5u);
}

TEST(FlightRecorder, CapacityIsAPowerOfTwoAndTheTailWraps) {
  FlightRecorder recorder(5);
  EXPECT_EQ(recorder.capacity(), 8u);
  for (uint64_t i = 1; i <= 20; ++i) recorder.record(allReduce(i));
  const std::vector<RecordedCall> all = recorder.tail(100);
  ASSERT_EQ(all.size(), 8u);
  EXPECT_EQ(all.front().seq, 13u);
  EXPECT_EQ(all.back().seq, 20u);
  EXPECT_EQ(all.back().call.count, 20u);
  const std::vector<RecordedCall> three = recorder.tail(3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three.front().recordId, 17u);
  EXPECT_EQ(FlightRecorder(0).capacity(), 1u);
}

TEST(FlightRecorder, KeepsEveryFieldOfTheCall) {
  FlightRecorder recorder(4);
  TraceCall call = allReduce(1024, 7);
  call.dtype = ncclBfloat16;
  call.op = ncclMax;
  call.grouped = true;
  int stream = 0;
  call.stream = &stream;
  const int64_t before = traceNowNs();
  recorder.record(call);
  const RecordedCall got = recorder.tail(1).at(0);
  EXPECT_EQ(got.call.kind, TraceKind::kAllReduce);
  EXPECT_EQ(got.call.count, 1024u);
  EXPECT_EQ(got.call.dtype, ncclBfloat16);
  EXPECT_EQ(got.call.op, ncclMax);
  EXPECT_TRUE(got.call.grouped);
  EXPECT_FALSE(got.call.captured);
  EXPECT_EQ(got.call.stream, &stream);
  EXPECT_STREQ(got.call.algorithm, "allreduce_oneshot");
  EXPECT_EQ(got.call.launch, 7u);
  EXPECT_GE(got.enqueueNs, before);
}

TEST(FlightRecorder, DeviceWordsGiveOurKernelsTheirState) {
  FlightRecorder recorder(8);
  volatile uint64_t started = 0, completed = 0;
  recorder.record(allReduce(1, 0));  // forwarded, no probe
  EXPECT_EQ(recorder.tail(1)[0].state, CallState::kUntracked);
  recorder.record(allReduce(1, 1));
  EXPECT_EQ(recorder.tail(1)[0].state, CallState::kUntracked);  // no words attached yet
  recorder.setDeviceProgress(&started, &completed);
  recorder.record(allReduce(1, 2));
  TraceCall captured = allReduce(1, 3);
  captured.captured = true;
  recorder.record(captured);
  auto states = [&] {
    std::vector<CallState> out;
    for (const RecordedCall& call : recorder.tail(8)) out.push_back(call.state);
    return out;
  };
  EXPECT_EQ(states(), (std::vector<CallState>{CallState::kUntracked, CallState::kEnqueued,
                                              CallState::kEnqueued, CallState::kCaptured}));
  started = 2;
  completed = 1;
  EXPECT_EQ(states(), (std::vector<CallState>{CallState::kUntracked, CallState::kCompleted,
                                              CallState::kStarted, CallState::kCaptured}));
  recorder.observe(1000);
  completed = 2;
  recorder.observe(2000);
  const std::vector<RecordedCall> calls = recorder.tail(8);
  EXPECT_EQ(calls[1].startedNs, 1000);
  EXPECT_EQ(calls[1].completedNs, 1000);
  EXPECT_EQ(calls[2].state, CallState::kCompleted);
  EXPECT_EQ(calls[2].startedNs, 1000);
  EXPECT_EQ(calls[2].completedNs, 2000);
  EXPECT_EQ(calls[0].startedNs, 0);
}

// A launch that failed never runs: later progress words (the next launches' stamps) must not make
// it look started or completed, and the entry keeps its place and fields.
TEST(FlightRecorder, ALaunchThatFailedStaysFailed) {
  FlightRecorder recorder(4);
  volatile uint64_t started = 0, completed = 0;
  recorder.setDeviceProgress(&started, &completed);
  recorder.record(allReduce(8, 1));
  const RecordTicket failed = recorder.record(allReduce(16, 2));
  recorder.record(allReduce(32, 3));
  recorder.markLaunchFailed(failed);
  started = completed = 3;
  const std::vector<RecordedCall> calls = recorder.tail(4);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].state, CallState::kCompleted);
  EXPECT_EQ(calls[1].state, CallState::kFailed);
  EXPECT_EQ(calls[1].seq, 2u);
  EXPECT_EQ(calls[1].call.count, 16u);
  EXPECT_EQ(calls[1].call.launch, 2u);
  EXPECT_EQ(calls[2].state, CallState::kCompleted);
  // Gone from the ring: marking it again changes nothing that is still there.
  for (int i = 0; i < 4; ++i) recorder.record(allReduce(64, 4 + i));
  recorder.markLaunchFailed(failed);
  for (const RecordedCall& call : recorder.tail(4)) EXPECT_NE(call.state, CallState::kFailed);
}

// A probe whose marks the test moves by hand.
class FakeProbe : public CompletionProbe {
 public:
  explicit FakeProbe(std::vector<int>* reached, bool decline = false)
      : reached_(reached), decline_(decline) {}
  bool markBefore(size_t slot, const void*) override {
    (*reached_)[slot] = 0;
    return !decline_;
  }
  bool markAfter(size_t, const void*) override { return !decline_; }
  Reached reachedBefore(size_t slot) override { return (*reached_)[slot] >= 1 ? Reached::kYes : Reached::kNo; }
  Reached reachedAfter(size_t slot) override { return (*reached_)[slot] >= 2 ? Reached::kYes : Reached::kNo; }

 private:
  std::vector<int>* reached_;
  bool decline_;
};

TEST(FlightRecorder, AProbeFollowsForwardedCalls) {
  FlightRecorder recorder(4);
  std::vector<int> reached(4, 0);
  recorder.setCompletionProbe(std::make_unique<FakeProbe>(&reached));
  ASSERT_TRUE(recorder.followsForwardedCalls());
  const RecordTicket ticket = recorder.record(allReduce(1));
  recorder.observe(10);
  EXPECT_EQ(recorder.tail(1)[0].state, CallState::kEnqueued);  // not armed yet: still in NCCL
  recorder.beforeForwarded(ticket, nullptr);
  recorder.afterForwarded(ticket, nullptr);
  recorder.observe(20);
  EXPECT_EQ(recorder.tail(1)[0].state, CallState::kEnqueued);
  reached[ticket.recordId & 3] = 1;
  recorder.observe(30);
  EXPECT_EQ(recorder.tail(1)[0].state, CallState::kStarted);
  EXPECT_EQ(recorder.tail(1)[0].startedNs, 30);
  reached[ticket.recordId & 3] = 2;
  recorder.observe(40);
  EXPECT_EQ(recorder.tail(1)[0].state, CallState::kCompleted);
  EXPECT_EQ(recorder.tail(1)[0].completedNs, 40);
}

TEST(FlightRecorder, ADeclinedProbeLeavesTheCallUntrackedButSettled) {
  FlightRecorder recorder(4);
  std::vector<int> reached(4, 2);
  recorder.setCompletionProbe(std::make_unique<FakeProbe>(&reached, /*decline=*/true));
  const RecordTicket ticket = recorder.record(allReduce(1));
  recorder.beforeForwarded(ticket, nullptr);
  recorder.afterForwarded(ticket, nullptr);
  recorder.observe(10);
  // Declined marks are never trusted, even when the probe would answer "yes"; the call is
  // untracked (it was "scheduled" forever, which a hang verdict counted as not started).
  EXPECT_EQ(recorder.tail(1)[0].state, CallState::kUntracked);
  EXPECT_EQ(recorder.tail(1)[0].completedNs, 0);
}

// Inside a group NCCL launches at the group's end and the runtime places no marks: a grouped
// forwarded call is untracked, never "scheduled" forever, and does not hold the observer back.
TEST(FlightRecorder, AGroupedForwardedCallIsUntracked) {
  FlightRecorder recorder(4);
  std::vector<int> reached(4, 0);
  recorder.setCompletionProbe(std::make_unique<FakeProbe>(&reached));
  TraceCall grouped = allReduce(1);
  grouped.grouped = true;
  recorder.record(grouped);
  const RecordTicket later = recorder.record(allReduce(2));
  recorder.beforeForwarded(later, nullptr);
  recorder.afterForwarded(later, nullptr);
  reached[later.recordId & 3] = 2;
  recorder.observe(10);
  const std::vector<RecordedCall> calls = recorder.tail(4);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].state, CallState::kUntracked);
  EXPECT_EQ(calls[1].state, CallState::kCompleted);
  EXPECT_EQ(calls[1].completedNs, 10);
}

// One writer, several readers: every entry a reader gets is a consistent copy (all fields
// derived from the same call), never a mix of two calls.
TEST(FlightRecorder, ReadersNeverSeeATornEntry) {
  // Two slots: readers land on the slot being written all the time.
  FlightRecorder recorder(2);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> checked{0};
  std::atomic<uint64_t> torn{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 1; ++r) {
    readers.emplace_back([&] {
      while (!done.load()) {
        for (const RecordedCall& call : recorder.tail(2)) {
          const uint64_t n = call.call.count;
          if (call.call.launch != n * 3 || call.call.peer != static_cast<int32_t>(n % 1000) ||
              call.seq != n || call.recordId + 1 != n) {
            torn.fetch_add(1);
          }
          checked.fetch_add(1);
        }
      }
    });
  }
  // Writes until the readers have looked at plenty of entries while the writer was busy.
  const int64_t deadline = monotonicNs() + 10LL * 1000000000;
  for (uint64_t n = 1; checked.load() < 200000 || n < 100000; ++n) {
    TraceCall call = allReduce(n, n * 3);
    call.peer = static_cast<int32_t>(n % 1000);
    recorder.record(call);
    if ((n & 1023) == 0 && monotonicNs() > deadline) break;
  }
  done.store(true);
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(torn.load(), 0u);
  EXPECT_GE(checked.load(), 200000u);
}

TEST(TraceCallOf, TakesWhatTheRuntimeHas) {
  cudaStream_t stream = reinterpret_cast<cudaStream_t>(0x1234);
  CollCall gather{CollKind::kAllGather, nullptr, nullptr, 64, ncclHalf, ncclSum, 0, nullptr, stream};
  const TraceCall traced = traceCallOf(gather);
  EXPECT_EQ(traced.kind, TraceKind::kAllGather);
  EXPECT_EQ(traced.count, 64u);
  EXPECT_EQ(traced.dtype, ncclHalf);
  EXPECT_EQ(traced.op, -1);  // AllGather has no operator, whatever CollCall carries
  EXPECT_EQ(traced.peer, -1);
  EXPECT_EQ(traced.stream, stream);
  EXPECT_EQ(traced.algorithm, nullptr);
  EXPECT_EQ(traced.launch, 0u);
  CollCall reduce = gather;
  reduce.kind = CollKind::kReduceScatter;
  reduce.op = ncclMax;
  EXPECT_EQ(traceCallOf(reduce).op, ncclMax);
}

TEST(CallStateName, PyTorchWords) {
  EXPECT_STREQ(callStateName(CallState::kEnqueued), "scheduled");
  EXPECT_STREQ(callStateName(CallState::kStarted), "started");
  EXPECT_STREQ(callStateName(CallState::kCompleted), "completed");
  EXPECT_STREQ(callStateName(CallState::kFailed), "failed");
}

}  // namespace
}  // namespace flashccl
