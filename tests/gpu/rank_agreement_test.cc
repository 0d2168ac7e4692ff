// Ranks that disagree on a call (a real application bug: a skipped step, a different size on one
// rank): the calls must never hand back data they did not compute with a success code. Each case
// runs on a fresh communicator; rank 0 and rank 1 call different things at one point, the others
// (if any) what rank 0 calls. Every rank must then: finish the call (no hang in our kernels),
// leave its output untouched, report ncclInvalidUsage through ncclCommGetAsyncError, fail every
// later call on the communicator fast with it (ours and forwarded), and say in
// ncclGetLastError what each side called.
#include <cstring>
#include <string>

#include "rank_process.h"
#include "test_inputs.h"

namespace flashccl_gpu_test {
namespace {

constexpr size_t kCount = 1024;
constexpr unsigned char kSentinel = 0x5A;

struct Buffers {
  char* in = nullptr;
  char* out = nullptr;
  cudaStream_t stream = nullptr;
  explicit Buffers(size_t bytes) {
    CUDA_EXPECT(cudaMalloc(&in, bytes));
    CUDA_EXPECT(cudaMalloc(&out, bytes));
    CUDA_EXPECT(cudaMemset(in, 1, bytes));
    CUDA_EXPECT(cudaMemset(out, kSentinel, bytes));
    CUDA_EXPECT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_EXPECT(cudaDeviceSynchronize());
  }
  ~Buffers() {
    cudaFree(in);
    cudaFree(out);
    cudaStreamDestroy(stream);
  }
};

// No byte of `device` changed, but for [ownOffset, ownOffset + ownBytes): an AllGather may copy
// its own input to its own place before it learns the peers disagree (that is not a peer's data).
bool untouched(const char* device, size_t bytes, size_t ownOffset = 0, size_t ownBytes = 0) {
  const std::vector<char> host = copyOut(device, bytes);
  for (size_t i = 0; i < host.size(); ++i) {
    if (i >= ownOffset && i < ownOffset + ownBytes) continue;
    if (static_cast<unsigned char>(host[i]) != kSentinel) return false;
  }
  return true;
}

// What one rank saw: printed for the record, checked below.
void expectCommunicatorFailedFast(RankProcess& p, ncclComm_t comm, Buffers& b, size_t outBytes,
                                  const std::string& expectedWords, size_t ownOffset = 0, size_t ownBytes = 0) {
  // The call returns and its kernel ends (a hang would stop this process at its time limit).
  CUDA_EXPECT(cudaStreamSynchronize(b.stream));
  ncclResult_t async = ncclSuccess;
  EXPECT_EQ(ncclCommGetAsyncError(comm, &async), ncclSuccess);
  EXPECT_EQ(async, ncclInvalidUsage) << "rank " << p.rank;
  EXPECT_TRUE(untouched(b.out, outBytes, ownOffset, ownBytes))
      << "rank " << p.rank << ": output written by a call that did not agree";
  const char* last = ncclGetLastError(comm);
  const std::string text = last ? last : "";
  EXPECT_NE(text.find(expectedWords), std::string::npos) << "rank " << p.rank << ": " << text;
  // Every later call on the communicator fails at once with the same error.
  EXPECT_EQ(ncclAllReduce(b.in, b.out, kCount, ncclFloat32, ncclSum, comm, b.stream), ncclInvalidUsage);
  EXPECT_EQ(ncclAllGather(b.in, b.out, kCount, ncclFloat32, comm, b.stream), ncclInvalidUsage);
  EXPECT_EQ(ncclBroadcast(b.in, b.out, kCount, ncclFloat32, 0, comm, b.stream), ncclInvalidUsage);
  CUDA_EXPECT(cudaStreamSynchronize(b.stream));
  EXPECT_TRUE(untouched(b.out, outBytes, ownOffset, ownBytes)) << "rank " << p.rank;
  std::printf("[ agreement ] rank %d: async error %d, last error: %s\n", p.rank, static_cast<int>(async), text.c_str());
}

class RankAgreement : public ::testing::Test {
 protected:
  void SetUp() override {
    p_ = RankProcess::get();
    if (p_ == nullptr) GTEST_SKIP() << "not started by tests/gpu/run_rank_tests.sh";
    comm_ = p_->newCommunicator();
    ASSERT_NE(comm_, nullptr);
    const char* reason = nullptr;
    ASSERT_EQ(flashcclCommState(comm_, &reason), 1) << (reason ? reason : "");
  }
  void TearDown() override {
    if (comm_ != nullptr) EXPECT_EQ(ncclCommDestroy(comm_), ncclSuccess);
    if (p_ != nullptr) p_->barrier();
  }
  bool odd() const { return p_->rank == 1; }  // rank 1 disagrees; the others call what rank 0 does

  RankProcess* p_ = nullptr;
  ncclComm_t comm_ = nullptr;
};

TEST_F(RankAgreement, AnotherCollectiveAtTheSamePoint) {
  Buffers b(kCount * sizeof(float) * 8);
  // Rank 1 calls AllGather where the others call AllReduce (same count and type).
  const ncclResult_t r = odd() ? ncclAllGather(b.in, b.out, kCount, ncclFloat32, comm_, b.stream)
                               : ncclAllReduce(b.in, b.out, kCount, ncclFloat32, ncclSum, comm_, b.stream);
  EXPECT_EQ(r, ncclSuccess);
  const size_t shard = kCount * sizeof(float);
  expectCommunicatorFailedFast(*p_, comm_, b, shard * p_->nranks,
                               odd() ? "AllGather(1024 x float) vs rank 0 AllReduce(1024 x float, sum)"
                                     : "AllReduce(1024 x float, sum) vs rank 1 AllGather(1024 x float)",
                               odd() ? shard * p_->rank : 0, odd() ? shard : 0);
}

TEST_F(RankAgreement, DifferentCounts) {
  Buffers b(2 * kCount * sizeof(float));
  const size_t count = odd() ? 2 * kCount : kCount;
  EXPECT_EQ(ncclAllReduce(b.in, b.out, count, ncclFloat32, ncclSum, comm_, b.stream), ncclSuccess);
  expectCommunicatorFailedFast(*p_, comm_, b, 2 * kCount * sizeof(float),
                               odd() ? "AllReduce(2048 x float, sum) vs rank 0 AllReduce(1024 x float, sum)"
                                     : "AllReduce(1024 x float, sum) vs rank 1 AllReduce(2048 x float, sum)");
}

TEST_F(RankAgreement, DifferentTypesOrOps) {
  Buffers b(kCount * sizeof(float));
  EXPECT_EQ(ncclReduceScatter(b.in, b.out, kCount / p_->nranks, ncclFloat32, odd() ? ncclMax : ncclSum, comm_, b.stream),
            ncclSuccess);
  expectCommunicatorFailedFast(*p_, comm_, b, kCount * sizeof(float), odd() ? "max) vs rank 0" : "sum) vs rank 1");
}

TEST_F(RankAgreement, ASkippedStep) {
  // Rank 1 skips a ReduceScatter the others make before an AllReduce: its AllReduce meets their
  // ReduceScatter. Both calls of theirs return; neither may produce data.
  Buffers b(kCount * sizeof(float));
  if (!odd()) {
    EXPECT_EQ(ncclReduceScatter(b.in, b.out, kCount / p_->nranks, ncclFloat32, ncclSum, comm_, b.stream), ncclSuccess);
  }
  EXPECT_EQ(ncclAllReduce(b.in, b.out, kCount, ncclFloat32, ncclSum, comm_, b.stream), ncclSuccess);
  expectCommunicatorFailedFast(*p_, comm_, b, kCount * sizeof(float),
                               odd() ? "AllReduce(1024 x float, sum) vs rank 0 ReduceScatter"
                                     : "vs rank 1 AllReduce(1024 x float, sum)");
}

TEST_F(RankAgreement, ACallForwardedOnOneRankOnly) {
  // Rank 1 makes a zero-count AllReduce (NCCL's no-op) where the others make a real one: rank 1
  // goes on to its next call, which must not pair with the others' call.
  Buffers b(kCount * sizeof(float));
  EXPECT_EQ(ncclAllReduce(b.in, b.out, odd() ? 0 : kCount, ncclFloat32, ncclSum, comm_, b.stream), ncclSuccess);
  if (odd()) EXPECT_EQ(ncclAllReduce(b.in, b.out, kCount, ncclFloat32, ncclSum, comm_, b.stream), ncclSuccess);
  expectCommunicatorFailedFast(*p_, comm_, b, kCount * sizeof(float), "was at call");
}

}  // namespace
}  // namespace flashccl_gpu_test
