// What the GoogleTest suites with virtual ranks on one GPU (virtual_ranks.h) share.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

// Fails the test (and returns from it) when a CUDA call fails, naming the call.
#define CUDA_OK(call)                                                                  \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_);             \
  } while (0)

namespace flashccl::testing {

// One GPU is all these suites need; without one they skip.
inline bool haveGpu() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

}  // namespace flashccl::testing
