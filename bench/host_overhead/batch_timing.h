// How the benchmarks turn enqueues into host time per call. The clock (std::chrono, reported as
// Google Benchmark's manual time) runs around a batch of enqueues and stops before any wait for
// the GPUs, so only the host's part of a call is counted.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include "two_gpus.h"

namespace flashccl_bench {

// Calls per timed batch. In timeRankZeroCalls, rank 0's kernels wait on the GPU for rank 1's,
// which are enqueued only after the batch: the whole batch must fit in the stream's launch queue
// (about a thousand launches, fewer with large arguments) or cudaLaunchKernel would block on a
// full queue for ever. 32 is far below that and still spreads the clock reads over 32 calls.
constexpr int kCallsPerBatch = 32;

// Waits for both ranks' streams. On an error: skips the benchmark, marks the GPUs broken, false.
bool waitForBothGpus(benchmark::State& state, TwoGpus& gpus);

// Skips the benchmark after a failed call and marks the GPUs broken (the ranks' queues may no
// longer pair up, so waiting for them could hang). Always false.
bool failedCall(benchmark::State& state, TwoGpus& gpus, const char* what);

// Host time of rank 0's calls, one after another, as a rank whose device is current issues them
// (the one-process-per-GPU case, and the one flashccl's budget is about). Each batch:
//   rank 0 issues kCallsPerBatch calls   timed
//   rank 1 issues their partners         not timed: our kernels need both ranks
//   both GPUs finish                     not timed: keeps the queues short
// `issue(rank)` enqueues one call, with the rank's device current; false when the call failed.
// One untimed batch first takes lazy module loading and first-call set-up out of the numbers.
// With virtual ranks both streams are on device 0: rank 0's kernels wait there for rank 1's,
// which can start beside them because each rank's grid is sized to half the GPU (VirtualRanks).
template <typename Issue>
void timeRankZeroCalls(benchmark::State& state, TwoGpus& gpus, Issue&& issue) {
  using Clock = std::chrono::steady_clock;
  bool ok = true;
  for (int rank = 0; rank < kRanks; ++rank) {
    cudaSetDevice(gpus.device(rank));
    for (int i = 0; i < kCallsPerBatch; ++i) ok &= issue(rank);
  }
  if (!ok) {
    failedCall(state, gpus, "a warm-up call");
    return;
  }
  if (!waitForBothGpus(state, gpus)) return;

  while (state.KeepRunningBatch(kCallsPerBatch)) {
    cudaSetDevice(gpus.device(0));
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < kCallsPerBatch; ++i) ok &= issue(0);
    const Clock::time_point stop = Clock::now();
    cudaSetDevice(gpus.device(1));
    for (int i = 0; i < kCallsPerBatch; ++i) ok &= issue(1);
    if (!ok) {
      failedCall(state, gpus, "a timed call");
      return;
    }
    if (!waitForBothGpus(state, gpus)) return;
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
  }
}

// Host time per call of several ways of issuing the same call, measured side by side: each
// iteration times one batch of `issue(way, rank)` per way on rank 0 (the order rotates from one
// iteration to the next), then issues rank 1's partners untimed, in the same order, and waits for
// both GPUs. A launch's host time drifts by several tenths of a microsecond from one stretch of
// time to the next on the H200 machine, as much as the overhead itself; batches taken
// microseconds apart see the same drift, so their differences are the overheads. Returns the
// host time per call of each way over the whole run (empty after a failure, with the benchmark
// skipped); the manual time is all batches' time.
template <int kWays, typename Issue>
std::array<double, kWays> timeRankZeroSideBySide(benchmark::State& state, TwoGpus& gpus, Issue&& issue) {
  using Clock = std::chrono::steady_clock;
  auto batch = [&](int way, int rank, bool* ok) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < kCallsPerBatch; ++i) *ok &= issue(way, rank);
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  std::array<double, kWays> perCall{};
  bool ok = true;
  for (int rank = 0; rank < kRanks; ++rank) {
    cudaSetDevice(gpus.device(rank));
    for (int way = 0; way < kWays; ++way) batch(way, rank, &ok);
  }
  if (!ok) {
    failedCall(state, gpus, "a warm-up call");
    return {};
  }
  if (!waitForBothGpus(state, gpus)) return {};

  std::array<double, kWays> seconds{};
  int64_t batches = 0;
  int first = 0;
  while (state.KeepRunningBatch(kCallsPerBatch)) {
    cudaSetDevice(gpus.device(0));
    double iteration = 0;
    for (int k = 0; k < kWays; ++k) {
      const int way = (first + k) % kWays;
      const double t = batch(way, 0, &ok);
      seconds[way] += t;
      iteration += t;
    }
    // Rank 1's partners in the same order, so every kernel of rank 0 meets its own.
    cudaSetDevice(gpus.device(1));
    for (int k = 0; k < kWays; ++k) batch((first + k) % kWays, 1, &ok);
    if (!ok) {
      failedCall(state, gpus, "a timed call");
      return {};
    }
    if (!waitForBothGpus(state, gpus)) return {};
    ++batches;
    first = (first + 1) % kWays;
    state.SetIterationTime(iteration);
  }
  const double calls = static_cast<double>(batches) * kCallsPerBatch;
  if (calls > 0) {
    for (int way = 0; way < kWays; ++way) perCall[way] = seconds[way] / calls * 1e6;
  }
  return perCall;
}

// Host time per call of calls issued in pairs, the way one thread drives several GPUs with NCCL:
//   ncclGroupStart; cudaSetDevice(0); AllReduce on rank 0; cudaSetDevice(1); AllReduce on rank 1;
//   ncclGroupEnd
// timed in batches of kCallsPerBatch pairs; the time per call is the batch's time over its calls
// (so each call carries half a group and one cudaSetDevice). NCCL needs this form: from one
// thread, a call on one rank outside a group may block waiting for the other rank (connection
// set-up), which that thread would then never reach.
void timeGroupedPairs(benchmark::State& state, TwoGpus& gpus, const CollectiveApi& api,
                      const std::array<RankSlot, kRanks>& slots, size_t count);

}  // namespace flashccl_bench
