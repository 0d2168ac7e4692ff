// Shared set-up for the GPU tests: communicators over every visible GPU (up to 8), created with
// flashccl's ncclCommInitAll and driven from one thread with group calls (as nccl-tests -g does),
// per-rank streams and buffers, deterministic inputs and the real NCCL's entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include "flashccl/flashccl.h"
#include "test_inputs.h"

namespace flashccl_gpu_test {

#define GPU_CHECK(call)                                                                      \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_);                   \
  } while (0)
#define NCCL_CHECK(call)                                                                     \
  do {                                                                                       \
    ncclResult_t r_ = (call);                                                                \
    ASSERT_EQ(r_, ncclSuccess) << #call << ": " << ncclGetErrorString(r_);                   \
  } while (0)

using AllReduceFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,
                                     ncclComm_t, cudaStream_t);
using AllGatherFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t,
                                     cudaStream_t);
using ReduceScatterFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,
                                         ncclComm_t, cudaStream_t);

struct RealNccl {
  AllReduceFn allReduce;
  AllGatherFn allGather;
  ReduceScatterFn reduceScatter;
};

// The whole communicator set for a test binary: made once, shared by every test.
class Ranks {
 public:
  static Ranks& get();  // skips the test (GTEST_SKIP in the caller) when < 2 GPUs
  bool usable() const { return n >= 2; }

  int n = 0;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  RealNccl real{};
  // Per rank, `bytes` each: pristine input, flashccl output, NCCL output.
  size_t bytes = 0;
  std::vector<char*> input, ours, theirs;

 private:
  Ranks();
};

// Runs fn(rank) for every rank inside one ncclGroupStart/End, each rank's device current.
template <typename Fn>
ncclResult_t grouped(Ranks& r, Fn fn) {
  ncclResult_t result = ncclGroupStart();
  for (int i = 0; i < r.n && result == ncclSuccess; ++i) {
    cudaSetDevice(i);
    result = fn(i);
  }
  ncclResult_t end = ncclGroupEnd();
  return result != ncclSuccess ? result : end;
}

void syncAll(Ranks& r);

}  // namespace flashccl_gpu_test
