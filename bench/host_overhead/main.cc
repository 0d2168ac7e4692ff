// flashccl_host_overhead: host time of an intercepted ncclAllReduce against a bare launch of the
// same kernel (docs/design.md, "Hot path": an intercepted call costs < 0.3 us of host time over its kernel
// launch). Google Benchmark's flags apply; bench/host_overhead/run.sh runs and records it.
//
// Two ranks on two GPUs with real NCCL communicators; on a machine with one GPU, or with
// --virtual-ranks, two virtual ranks on device 0 (one_gpu.h). Without a GPU: skipped, exit 0.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "allreduce_benchmarks.h"
#include "runtime_calls.h"
#include "batch_timing.h"
#include "flashccl/flashccl.h"
#include "two_gpus.h"

namespace {

// docs/design.md, "No NVLink multicast": NVLink multicast can take the shared host's GPUs out of service. Before any NCCL
// call, so every communicator of this process sees it.
void keepNvlinkMulticastOff() {
  const char* set = std::getenv("NCCL_NVLS_ENABLE");
  if (set != nullptr && std::strcmp(set, "0") == 0) return;
  if (set != nullptr) {
    std::fprintf(stderr, "flashccl_host_overhead: NCCL_NVLS_ENABLE=%s overridden to 0\n", set);
  }
  setenv("NCCL_NVLS_ENABLE", "0", 1);
}

std::string ncclVersion() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) return "unknown";
  // NCCL >= 2.9 encodes X.Y.Z as X*10000 + Y*100 + Z.
  return std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." +
         std::to_string(code % 100);
}

std::string gpuNames() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return "none";
  }
  std::string names;
  for (int device = 0; device < count; ++device) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) continue;
    names += (names.empty() ? "" : ", ") + std::string(prop.name);
  }
  return names;
}

int gpuCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

// Removes --virtual-ranks from the arguments (Google Benchmark rejects flags it does not know);
// true when it was there.
bool takeVirtualRanksFlag(int* argc, char** argv) {
  bool found = false;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strcmp(argv[i], "--virtual-ranks") == 0) {
      found = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  return found;
}

bool listingOnly(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_list_tests", 22) == 0) return true;
  }
  return false;
}

// Lines in the JSON's "context" that the markdown report shows.
void describeRun(bool virtualRanks) {
  benchmark::AddCustomContext("nccl_version", ncclVersion());
  benchmark::AddCustomContext("nccl_library", flashcclRealLibraryPath());
  benchmark::AddCustomContext("flashccl_version", flashcclVersion());
  benchmark::AddCustomContext("gpus", gpuNames());
  benchmark::AddCustomContext("calls_per_batch",
                              std::to_string(flashccl_bench::kCallsPerBatch));
  benchmark::AddCustomContext(
      "ranks", virtualRanks ? "2 virtual ranks on one GPU (each its own buffers, stream and "
                              "flashccl context; no NCCL communicator)"
                            : "2 ranks, one GPU each, NCCL communicators");
  if (virtualRanks) {
    benchmark::AddCustomContext("selection_table",
                                flashccl_bench::TwoGpus::get().selectionSource());
  }
}

}  // namespace

int main(int argc, char** argv) {
  keepNvlinkMulticastOff();
  const bool virtualRanksFlag = takeVirtualRanksFlag(&argc, argv);
  const int gpus = gpuCount();
  if (gpus == 0 && !listingOnly(argc, argv)) {
    std::printf("flashccl_host_overhead: no GPU; skipped\n");
    return 0;
  }
  const bool virtualRanks = virtualRanksFlag || gpus == 1;
  if (virtualRanks) flashccl_bench::TwoGpus::useVirtualRanks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  describeRun(virtualRanks && gpus > 0);
  flashccl_bench::registerAllReduceBenchmarks();
  flashccl_bench::registerRuntimeCallBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
