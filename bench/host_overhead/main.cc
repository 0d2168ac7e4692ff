// flashccl_host_overhead: host time of an intercepted ncclAllReduce against a bare launch of the
// same kernel (DESIGN §2.5: an intercepted call costs < 0.3 us of host time over its kernel
// launch). Google Benchmark's flags apply; bench/host_overhead/run.sh runs and records it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "allreduce_benchmarks.h"
#include "batch_timing.h"
#include "flashccl/flashccl.h"

namespace {

// DESIGN §2.9: NVLink multicast can take the shared host's GPUs out of service. Before any NCCL
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

// Lines in the JSON's "context" that the markdown report shows.
void describeRun() {
  benchmark::AddCustomContext("nccl_version", ncclVersion());
  benchmark::AddCustomContext("nccl_library", flashcclRealLibraryPath());
  benchmark::AddCustomContext("flashccl_version", flashcclVersion());
  benchmark::AddCustomContext("gpus", gpuNames());
  benchmark::AddCustomContext("calls_per_batch",
                              std::to_string(flashccl_bench::kCallsPerBatch));
}

}  // namespace

int main(int argc, char** argv) {
  keepNvlinkMulticastOff();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  describeRun();
  flashccl_bench::registerAllReduceBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
