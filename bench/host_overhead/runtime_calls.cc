#include "runtime_calls.h"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include "base/driver_entry.h"

namespace flashccl_bench {

namespace {

using CtxGetCurrent = int (*)(void**);  // CUresult cuCtxGetCurrent(CUcontext*)

void cudaGetDeviceCall(benchmark::State& state) {
  int device = -1;
  for (auto _ : state) {
    cudaGetDevice(&device);
    benchmark::DoNotOptimize(device);
  }
}

void cudaGetLastErrorCall(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(cudaGetLastError());
}

void cuCtxGetCurrentCall(benchmark::State& state) {
  void* entry = flashccl::driverEntryPoint("cuCtxGetCurrent");
  if (entry == nullptr) {
    state.SkipWithError("cuCtxGetCurrent: no driver entry point");
    return;
  }
  const CtxGetCurrent getCurrent = reinterpret_cast<CtxGetCurrent>(entry);
  void* context = nullptr;
  for (auto _ : state) {
    getCurrent(&context);
    benchmark::DoNotOptimize(context);
  }
}

}  // namespace

void registerRuntimeCallBenchmarks() {
  benchmark::RegisterBenchmark("BM_CudaGetDevice", cudaGetDeviceCall)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_CudaGetLastError", cudaGetLastErrorCall)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_CuCtxGetCurrent", cuCtxGetCurrentCall)->Unit(benchmark::kMicrosecond);
}

}  // namespace flashccl_bench
