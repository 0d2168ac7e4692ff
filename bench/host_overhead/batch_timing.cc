#include "batch_timing.h"

#include <string>

namespace flashccl_bench {

bool waitForBothGpus(benchmark::State& state, TwoGpus& gpus) {
  for (int rank = 0; rank < kRanks; ++rank) {
    cudaSetDevice(gpus.device(rank));
    const cudaError_t err = cudaStreamSynchronize(gpus.streams[rank]);
    if (err != cudaSuccess) {
      const std::string why = "rank " + std::to_string(rank) +
                              " cudaStreamSynchronize: " + cudaGetErrorString(err);
      gpus.markBroken(why);
      state.SkipWithError(why);
      return false;
    }
  }
  return true;
}

bool failedCall(benchmark::State& state, TwoGpus& gpus, const char* what) {
  const std::string why = std::string(what) + " failed; later benchmarks are skipped because "
                          "the ranks' queued kernels may no longer pair up";
  gpus.markBroken(why);
  state.SkipWithError(why);
  return false;
}

void timeGroupedPairs(benchmark::State& state, TwoGpus& gpus, const CollectiveApi& api,
                      const std::array<RankSlot, kRanks>& slots, size_t count) {
  using Clock = std::chrono::steady_clock;
  auto pairs = [&](int n) {
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      ok &= api.groupStart() == ncclSuccess;
      for (int rank = 0; rank < kRanks; ++rank) {
        const RankSlot& slot = slots[rank];
        cudaSetDevice(gpus.device(rank));
        ok &= api.allReduce(slot.send, slot.recv, count, ncclFloat, ncclSum, slot.comm,
                            slot.stream) == ncclSuccess;
      }
      ok &= api.groupEnd() == ncclSuccess;
    }
    return ok;
  };

  if (!pairs(kCallsPerBatch)) {
    failedCall(state, gpus, "a warm-up call");
    return;
  }
  if (!waitForBothGpus(state, gpus)) return;
  while (state.KeepRunningBatch(kRanks * kCallsPerBatch)) {
    const Clock::time_point start = Clock::now();
    const bool ok = pairs(kCallsPerBatch);
    const Clock::time_point stop = Clock::now();
    if (!ok) {
      failedCall(state, gpus, "a timed call");
      return;
    }
    if (!waitForBothGpus(state, gpus)) return;
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
  }
}

}  // namespace flashccl_bench
