#include "allreduce_benchmarks.h"

#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>
#include <nccl.h>

#include "batch_timing.h"
#include "captured_launch.h"
#include "flashccl/flashccl.h"
#include "two_gpus.h"

namespace flashccl_bench {

namespace {

// The kernels flashccl's ncclAllReduce of one size enqueues on each rank, captured once.
struct BareLaunches {
  std::array<std::unique_ptr<CapturedLaunch>, kRanks> rank;
  std::string algorithm;
  std::string error;  // empty when both ranks' launches were captured
};

size_t floatCount(const benchmark::State& state) {
  return static_cast<size_t>(state.range(0)) / sizeof(float);
}

void skip(benchmark::State& state, const std::string& why) { state.SkipWithError(why); }

// The algorithm flashccl runs for this size on our communicators, or "" (and the benchmark
// skipped) when there is none: a forwarded call has no kernel of ours to compare, and capturing
// NCCL's call on one rank alone could block.
std::string interceptingAlgorithm(benchmark::State& state, TwoGpus& gpus, size_t count) {
  if (!gpus.oursProblem().empty()) {
    skip(state, gpus.oursProblem());
    return "";
  }
  if (count == 0 || count * sizeof(float) > kMaxBytes) {
    skip(state, "size outside 4 B .. " + std::to_string(kMaxBytes) + " B");
    return "";
  }
  std::string algorithm;
  for (int rank = 0; rank < kRanks; ++rank) {
    const char* why = nullptr;
    const std::string chosen = flashcclPlan(gpus.ours[rank].comm, flashcclAllReduce, count,
                                            ncclFloat, ncclSum, /*inPlace=*/0, &why);
    if (chosen == "NCCL" || (rank > 0 && chosen != algorithm)) {
      skip(state, "flashccl does not take this size on every rank (rank " + std::to_string(rank) +
                      ": " + chosen + (why ? std::string(", ") + why : std::string()) + ")");
      return "";
    }
    algorithm = chosen;
  }
  return algorithm;
}

bool ourAllReduce(const RankSlot& slot, size_t count) {
  return ncclAllReduce(slot.send, slot.recv, count, ncclFloat, ncclSum, slot.comm, slot.stream) ==
         ncclSuccess;
}

// nullptr when the benchmark has been skipped (a failed warm-up call).
const BareLaunches* bareLaunchesFor(benchmark::State& state, TwoGpus& gpus, size_t count,
                                    const std::string& algorithm) {
  // Never destroyed, like the communicators: destroying graphs at exit buys nothing.
  static auto& made = *new std::map<size_t, BareLaunches>;
  auto found = made.find(count);
  if (found != made.end()) return &found->second;

  // One eager call on each rank first, so that the kernel's module is loaded (CUDA loads modules
  // lazily, at a kernel's first launch) outside the capture.
  bool ok = true;
  for (int rank = 0; rank < kRanks; ++rank) {
    cudaSetDevice(gpus.device(rank));
    ok &= ourAllReduce(gpus.ours[rank], count);
  }
  if (!ok) {
    failedCall(state, gpus, "the call before the capture");
    return nullptr;
  }
  if (!waitForBothGpus(state, gpus)) return nullptr;

  BareLaunches& launches = made[count];
  launches.algorithm = algorithm;
  for (int rank = 0; rank < kRanks && launches.error.empty(); ++rank) {
    const RankSlot& slot = gpus.ours[rank];
    cudaSetDevice(gpus.device(rank));
    launches.rank[rank] = CapturedLaunch::capture(
        slot.stream, [&] { return ourAllReduce(slot, count); }, &launches.error);
    const char* ran = flashcclLastAlgorithm(slot.comm);
    if (launches.error.empty() && (ran == nullptr || algorithm != ran)) {
      launches.error = "the captured call ran " + std::string(ran ? ran : "(unknown)") +
                       ", not " + algorithm;
    }
    if (!launches.error.empty()) launches.error = "rank " + std::to_string(rank) + ": " +
                                                  launches.error;
  }
  return &launches;
}

// The captured launches of this benchmark's size, or nullptr (and the benchmark skipped).
const BareLaunches* capturedForThisSize(benchmark::State& state, TwoGpus& gpus, size_t count) {
  const std::string algorithm = interceptingAlgorithm(state, gpus, count);
  if (algorithm.empty()) return nullptr;
  const BareLaunches* bare = bareLaunchesFor(state, gpus, count, algorithm);
  if (bare == nullptr) return nullptr;
  if (!bare->error.empty()) {
    skip(state, bare->error);
    return nullptr;
  }
  return bare;
}

void bareLaunchWith(benchmark::State& state, CapturedLaunch::Launcher how) {
  TwoGpus& gpus = TwoGpus::get();
  const BareLaunches* bare = capturedForThisSize(state, gpus, floatCount(state));
  if (bare == nullptr) return;
  const size_t kernels = bare->rank[0]->kernelCount();
  state.SetLabel(bare->algorithm + " (" + std::to_string(kernels) + " kernel" +
                 (kernels == 1 ? ")" : "s)"));
  timeRankZeroCalls(state, gpus,
                    [&](int rank) { return bare->rank[rank]->launch(how) == cudaSuccess; });
}

void bareLaunch(benchmark::State& state) { bareLaunchWith(state, CapturedLaunch::Launcher::kFlashccl); }

void bareRuntimeLaunch(benchmark::State& state) { bareLaunchWith(state, CapturedLaunch::Launcher::kRuntime); }

void interceptedAllReduce(benchmark::State& state) {
  TwoGpus& gpus = TwoGpus::get();
  const size_t count = floatCount(state);
  const std::string algorithm = interceptingAlgorithm(state, gpus, count);
  if (algorithm.empty()) return;
  state.SetLabel(algorithm);
  timeRankZeroCalls(state, gpus, [&](int rank) { return ourAllReduce(gpus.ours[rank], count); });
}

void sideBySide(benchmark::State& state) {
  TwoGpus& gpus = TwoGpus::get();
  const size_t count = floatCount(state);
  const BareLaunches* bare = capturedForThisSize(state, gpus, count);
  if (bare == nullptr) return;
  state.SetLabel(bare->algorithm);
  enum Way { kBare, kIntercepted, kRuntime, kWays };
  const std::array<double, kWays> us = timeRankZeroSideBySide<kWays>(state, gpus, [&](int way, int rank) {
    switch (way) {
      case kBare: return bare->rank[rank]->launch(CapturedLaunch::Launcher::kFlashccl) == cudaSuccess;
      case kIntercepted: return ourAllReduce(gpus.ours[rank], count);
      default: return bare->rank[rank]->launch(CapturedLaunch::Launcher::kRuntime) == cudaSuccess;
    }
  });
  if (us[kBare] == 0) return;  // skipped
  state.counters["bare_us"] = us[kBare];
  state.counters["intercepted_us"] = us[kIntercepted];
  state.counters["runtime_us"] = us[kRuntime];
  state.counters["overhead_us"] = us[kIntercepted] - us[kBare];
  state.counters["vs_runtime_us"] = us[kIntercepted] - us[kRuntime];
}

void interceptedAllReduceGrouped(benchmark::State& state) {
  TwoGpus& gpus = TwoGpus::get();
  const size_t count = floatCount(state);
  const std::string algorithm = interceptingAlgorithm(state, gpus, count);
  if (algorithm.empty()) return;
  // ncclGroupStart/End go to the real NCCL, which has never heard of the made-up handles.
  if (gpus.virtualRanks()) return skip(state, gpus.ncclOnlyProblem());
  state.SetLabel(algorithm);
  timeGroupedPairs(state, gpus, gpus.flashcclApi, gpus.ours, count);
}

void passThroughAllReduceGrouped(benchmark::State& state) {
  TwoGpus& gpus = TwoGpus::get();
  if (!gpus.ncclOnlyProblem().empty()) return skip(state, gpus.ncclOnlyProblem());
  state.SetLabel("NCCL (flashccl forwards: unknown comm)");
  timeGroupedPairs(state, gpus, gpus.flashcclApi, gpus.ncclOnly, floatCount(state));
}

void realNcclAllReduceGrouped(benchmark::State& state) {
  TwoGpus& gpus = TwoGpus::get();
  if (!gpus.ncclOnlyProblem().empty()) return skip(state, gpus.ncclOnlyProblem());
  state.SetLabel("NCCL (its own entry points)");
  timeGroupedPairs(state, gpus, gpus.realApi, gpus.ncclOnly, floatCount(state));
}

}  // namespace

const std::vector<size_t>& benchmarkSizes() {
  static const std::vector<size_t> sizes = {8, size_t{64} << 10, size_t{8} << 20};
  return sizes;
}

void registerAllReduceBenchmarks() {
  struct Entry {
    const char* name;
    void (*run)(benchmark::State&);
  };
  const Entry entries[] = {
      {"BM_BareLaunch", bareLaunch},
      {"BM_BareRuntimeLaunch", bareRuntimeLaunch},
      {"BM_InterceptedAllReduce", interceptedAllReduce},
      {"BM_SideBySide", sideBySide},
      {"BM_InterceptedAllReduceGrouped", interceptedAllReduceGrouped},
      {"BM_PassThroughAllReduceGrouped", passThroughAllReduceGrouped},
      {"BM_RealNcclAllReduceGrouped", realNcclAllReduceGrouped},
  };
  for (size_t bytes : benchmarkSizes()) {
    for (const Entry& entry : entries) {
      benchmark::RegisterBenchmark(entry.name, entry.run)
          ->Arg(static_cast<int64_t>(bytes))
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace flashccl_bench
