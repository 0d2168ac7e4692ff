// A CPU stand-in for the CUDA runtime, NCCL and flashccl's API, just large enough to run
// `flashccl perf`'s GPU-side code (runners, RankDriver, perfMain) on a machine without GPUs.
//
// "Device" memory is host memory. Each stream is a worker thread running its operations in order, so
// stream semantics hold (cudaStreamQuery says "not ready" while work is queued; a device-to-host copy
// to pageable memory waits, as CUDA's does). Collectives rendezvous across the ranks' stream threads
// and compute the exact result on the host. Graph capture records a stream's operations; a replay
// queues them again. Both the "real NCCL" and the "flashccl" entry points run the same collectives;
// flashccl's can be told to corrupt its output so the checker's verdicts can be tested.
// Environment switches, for child processes of --processes: MOCK_FAIL_COMM_INIT=1 makes ncclCommInitRank
// fail; MOCK_HANG=1 makes flashccl's collectives never finish.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

namespace mockgpu {

// How many GPUs cudaGetDeviceCount reports (default 2). 0 makes it fail with cudaErrorNoDevice.
void setDeviceCount(int count);

// Queues `work` on `stream` (or records it, while the stream is being captured).
void submit(cudaStream_t stream, std::function<void()> work);

// What flashccl's collectives do wrong, for the checker's tests.
enum class Fault {
  kNone,
  kFlipFirstElementOnRank1,   // AllReduce: rank 1's first output byte is flipped (a wrong value)
  kSkipLastElementOnRank0,    // AllReduce: rank 0 leaves its last output element unwritten
  kDifferentLastBitOnRank1,   // AllReduce: rank 1's last element differs in its lowest bit only
};
void setFlashcclFault(Fault fault);

// The algorithm name flashcclLastAlgorithm reports after a flashccl collective; "" plays a disabled
// flashccl (no name, flashcclCommState -1).
void setFlashcclAlgorithmName(const std::string& name);

// Timing, for the interleaving and spread tests. Collectives of at least 16 float elements (the
// measured ones; the tool's barrier and exchanges are smaller or bytes) sleep this long on every
// rank before they complete; every `outlierEvery`-th such NCCL collective on rank 0 sleeps
// `outlierMicros` more (0: never), like a moment the machine was busy.
void setDelays(int ncclMicros, int flashcclMicros, int outlierEvery = 0, int outlierMicros = 0);
// 'N' or 'F' per measured collective rank 0 ran, in order; cleared by setDelays.
std::string measuredSequence();

// Collectives run so far, by entry point (to check the tool alternates and calls both).
long long ncclCollectivesRun();
long long flashcclCollectivesRun();
long long graphLaunches();

}  // namespace mockgpu
