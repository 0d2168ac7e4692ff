// The two GPUs every host-overhead benchmark runs on: one process, one thread, rank r on GPU r,
// like tests/gpu. Two sets of communicators over the same streams and buffers:
//   ours      made with flashccl's ncclCommInitAll, so flashccl sets them up and intercepts them;
//   ncclOnly  made with the real NCCL's ncclCommInitAll (flashcclRealFunction), so flashccl has
//             never seen them and forwards every call on them (DESIGN §2.1: unknown comm = forward).
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>
#include <nccl.h>

namespace flashccl_bench {

constexpr int kRanks = 2;
// The largest message a benchmark may use: every rank's send and receive buffers have this size.
constexpr size_t kMaxBytes = size_t{8} << 20;

// What one rank's call needs.
struct RankSlot {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  const float* send = nullptr;
  float* recv = nullptr;
};

// One way into a library: flashccl's exports or the real NCCL's own functions.
struct CollectiveApi {
  ncclResult_t (*groupStart)();
  ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t);
  ncclResult_t (*groupEnd)();
};

class TwoGpus {
 public:
  // Made at first use, not at start-up, so that --benchmark_list_tests works without GPUs.
  // Never destroyed: tearing communicators down while the process exits buys nothing.
  static TwoGpus& get();

  // Empty when the communicators are usable; otherwise why not (a benchmark reports it).
  const std::string& oursProblem() const { return oursProblem_; }
  const std::string& ncclOnlyProblem() const { return ncclOnlyProblem_; }
  // After a failed call the ranks may have unequal work queued, and the kernels of one wait for
  // ever for the other's: nothing can be measured (or waited for) after that.
  void markBroken(const std::string& why) { oursProblem_ = ncclOnlyProblem_ = why; }

  std::array<RankSlot, kRanks> ours;
  std::array<RankSlot, kRanks> ncclOnly;
  std::array<cudaStream_t, kRanks> streams{};

  CollectiveApi flashcclApi{};  // the exports an application calls
  CollectiveApi realApi{};      // the real NCCL's, bypassing flashccl entirely

 private:
  TwoGpus();
  void makeStreamsAndBuffers();
  void makeOurCommunicators();
  void makeNcclOnlyCommunicators();

  std::string oursProblem_;
  std::string ncclOnlyProblem_;
};

}  // namespace flashccl_bench
