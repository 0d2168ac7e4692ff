// One rank of a communicator per process, as real jobs run: tests/gpu/run_rank_tests.sh starts N
// copies of a test program, each with FLASHCCL_TEST_RANK, FLASHCCL_TEST_NRANKS and
// FLASHCCL_TEST_ID_DIR (where rank 0 leaves the ncclUniqueId). On ONE GPU each process also gets
// its own NCCL_HOSTID: NCCL then takes several ranks on one device and joins them through its
// socket transport, while flashccl's kernels reach the peers through CUDA IPC on that device.
// Timings of such runs mean nothing (the GPU time-slices the processes); results do.
//
// Every process runs the same tests in the same order, so their collectives line up. Checks use
// EXPECT (a failing rank carries on and stays in step); only set-up that fails on every rank
// alike may ASSERT.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include "flashccl/flashccl.h"

namespace flashccl_gpu_test {

// The real NCCL behind flashccl (flashcclRealFunction): calls that bypass flashccl entirely.
struct RealCollectives {
  ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*allGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*reduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                cudaStream_t);
};

class RankProcess {
 public:
  // The process's rank; null (and the caller skips) when not started by the launcher.
  static RankProcess* get();

  int rank = 0;
  int nranks = 0;
  int device = 0;
  ncclComm_t world = nullptr;  // made at start-up; flashccl is set up on it
  RealCollectives real{};

  // A fresh communicator over the same ranks (ncclCommSplit of `world`, so flashccl sets it up
  // too). Tests that break a communicator on purpose use one.
  ncclComm_t newCommunicator();
  // Every rank reaches this point before any goes on (the real NCCL's AllReduce of one int on
  // `world`, which flashccl never sees). Returns false when NCCL failed.
  bool barrier();

 private:
  RankProcess() = default;
  bool start(std::string* error);
  int* barrierWord_ = nullptr;
  cudaStream_t barrierStream_ = nullptr;
};

#define RANK_PROCESS_OR_SKIP(var)                                                       \
  RankProcess* var = RankProcess::get();                                                \
  if (var == nullptr) GTEST_SKIP() << "not started by tests/gpu/run_rank_tests.sh"

#define CUDA_EXPECT(call)                                                                  \
  do {                                                                                     \
    const cudaError_t e_ = (call);                                                         \
    EXPECT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_);                 \
  } while (0)

// Device buffer helpers for one rank.
std::vector<char> copyOut(const void* device, size_t bytes);
void copyIn(void* device, const std::vector<char>& host);

}  // namespace flashccl_gpu_test
