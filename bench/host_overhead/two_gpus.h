// The two ranks every host-overhead benchmark runs on: one process, one thread, rank r on GPU r,
// like tests/gpu. Two sets of communicators over the same streams and buffers:
//   ours      made with flashccl's ncclCommInitAll, so flashccl sets them up and intercepts them;
//   ncclOnly  made with the real NCCL's ncclCommInitAll (flashcclRealFunction), so flashccl has
//             never seen them and forwards every call on them (docs/design.md, "Never wrap ncclComm_t": unknown comm = forward).
// With virtual ranks (one GPU; one_gpu.h) both ranks are on device 0 and `ours` are flashccl
// contexts under made-up handles; there are no NCCL communicators, so ncclOnly is unusable.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
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

class OneGpuRanks;

class TwoGpus {
 public:
  // Before the first get(): both ranks on device 0 (one_gpu.h) instead of one GPU each.
  static void useVirtualRanks() { virtualRanksWanted() = true; }

  // Made at first use, not at start-up, so that --benchmark_list_tests works without GPUs.
  // Never destroyed: tearing communicators down while the process exits buys nothing.
  static TwoGpus& get();

  // Empty when the communicators are usable; otherwise why not (a benchmark reports it).
  const std::string& oursProblem() const { return oursProblem_; }
  const std::string& ncclOnlyProblem() const { return ncclOnlyProblem_; }
  // After a failed call the ranks may have unequal work queued, and the kernels of one wait for
  // ever for the other's: nothing can be measured (or waited for) after that.
  void markBroken(const std::string& why) { oursProblem_ = ncclOnlyProblem_ = why; }

  bool virtualRanks() const { return virtualRanks_; }
  // The device rank `rank` runs on, to make current before its calls.
  int device(int rank) const { return virtualRanks_ ? 0 : rank; }
  // Where the virtual ranks' selection table came from; empty with one GPU per rank.
  std::string selectionSource() const;

  std::array<RankSlot, kRanks> ours;
  std::array<RankSlot, kRanks> ncclOnly;
  std::array<cudaStream_t, kRanks> streams{};

  CollectiveApi flashcclApi{};  // the exports an application calls
  CollectiveApi realApi{};      // the real NCCL's, bypassing flashccl entirely

 private:
  TwoGpus();
  static bool& virtualRanksWanted();
  void makeVirtualRanks();
  void makeStreamsAndBuffers();
  void makeOurCommunicators();
  void makeNcclOnlyCommunicators();

  std::string oursProblem_;
  std::string ncclOnlyProblem_;
  bool virtualRanks_ = false;
  std::unique_ptr<OneGpuRanks> oneGpu_;  // only with virtual ranks
};

}  // namespace flashccl_bench
