// Things that break collectives in practice: many back-to-back calls of changing sizes (sequence
// and slot bookkeeping), two communicators used alternately, one communicator used from two
// streams (ordering), the flashccl path actually being taken, and a stream of the wrong GPU.
#include <cstring>

#include "case_checks.h"
#include "device_compare.h"
#include "gpu_test_env.h"

namespace flashccl_gpu_test {
namespace {

// Compares ours[i] with theirs[i] over `bytes` for every rank.
void expectSame(Ranks& r, size_t bytes, const char* what) {
  for (int i = 0; i < r.n; ++i) {
    std::vector<char> a(bytes), b(bytes);
    cudaSetDevice(i);
    GPU_CHECK(cudaMemcpy(a.data(), r.ours[i], bytes, cudaMemcpyDeviceToHost));
    GPU_CHECK(cudaMemcpy(b.data(), r.theirs[i], bytes, cudaMemcpyDeviceToHost));
    ASSERT_EQ(std::memcmp(a.data(), b.data(), bytes), 0) << what << ": rank " << i << " differs from NCCL";
  }
}

void fillInputs(Ranks& r, size_t count, uint32_t seed) {
  for (int i = 0; i < r.n; ++i) {
    cudaSetDevice(i);
    std::vector<char> host = makeInput(ncclFloat32, count, i, seed);
    GPU_CHECK(cudaMemcpy(r.input[i], host.data(), host.size(), cudaMemcpyHostToDevice));
    // A copy from pageable memory can return before it lands, on the legacy stream, which the
    // test's non-blocking streams do not wait for.
    GPU_CHECK(cudaDeviceSynchronize());
  }
}

TEST(Stress, FlashcclPathIsTaken) {
  Ranks& r = Ranks::get();
  if (!r.usable()) GTEST_SKIP() << "needs >= 2 GPUs";
  for (int i = 0; i < r.n; ++i) {
    const char* why = nullptr;
    EXPECT_EQ(flashcclCommState(r.comms[i], &why), 1) << (why ? why : "");
  }
  fillInputs(r, 1024, 1);
  NCCL_CHECK(grouped(r, [&](int i) { return ncclAllReduce(r.input[i], r.ours[i], 1024, ncclFloat32, ncclSum, r.comms[i], r.streams[i]); }));
  syncAll(r);
  EXPECT_STRNE(flashcclLastAlgorithm(r.comms[0]), "NCCL");
}

// Every call's output is compared with NCCL's on the GPU (device_compare.h), not only the last.
TEST(Stress, TenThousandCallsOfChangingSizesEveryResultChecked) {
  Ranks& r = Ranks::get();
  if (!r.usable()) GTEST_SKIP() << "needs >= 2 GPUs";
  const size_t counts[] = {1, 37, 1024, 16384 + 3, 65536, 262144 + 5, 1u << 20, 3000000};
  fillInputs(r, 3000000 * r.n, 2);
  std::vector<unsigned long long*> mismatches(r.n);
  for (int i = 0; i < r.n; ++i) {
    cudaSetDevice(i);
    GPU_CHECK(cudaMalloc(&mismatches[i], sizeof(unsigned long long)));
    GPU_CHECK(cudaMemset(mismatches[i], 0, sizeof(unsigned long long)));
    GPU_CHECK(cudaDeviceSynchronize());  // the memset lands before the streams' kernels count
  }
  const double tolerance = toleranceFor(ncclFloat32, r.n);
  for (int k = 0; k < 10000; ++k) {
    const size_t count = counts[k % 8];
    const int coll = (k / 8) % 3;
    auto call = [&](bool nccl, int i, char* out) {
      if (coll == 0) return (nccl ? r.real.allReduce : ncclAllReduce)(r.input[i], out, count, ncclFloat32, ncclSum, r.comms[i], r.streams[i]);
      if (coll == 1) return (nccl ? r.real.allGather : ncclAllGather)(r.input[i], out, count, ncclFloat32, r.comms[i], r.streams[i]);
      return (nccl ? r.real.reduceScatter : ncclReduceScatter)(r.input[i], out, count, ncclFloat32, ncclSum, r.comms[i], r.streams[i]);
    };
    NCCL_CHECK(grouped(r, [&](int i) { return call(false, i, r.ours[i]); }));
    NCCL_CHECK(grouped(r, [&](int i) { return call(true, i, r.theirs[i]); }));
    for (int i = 0; i < r.n; ++i) {
      cudaSetDevice(i);
      GPU_CHECK(countMismatches(r.ours[i], r.theirs[i], count * (coll == 1 ? r.n : 1), ncclFloat32, tolerance,
                                mismatches[i], r.streams[i]));
    }
  }
  syncAll(r);
  for (int i = 0; i < r.n; ++i) {
    unsigned long long found = 0;
    cudaSetDevice(i);
    GPU_CHECK(cudaMemcpy(&found, mismatches[i], sizeof(found), cudaMemcpyDeviceToHost));
    EXPECT_EQ(found, 0u) << "rank " << i << ": elements differing from NCCL over 10000 calls";
    cudaFree(mismatches[i]);
  }
}

TEST(Stress, TwoCommunicatorsAlternately) {
  Ranks& r = Ranks::get();
  if (!r.usable()) GTEST_SKIP() << "needs >= 2 GPUs";
  std::vector<ncclComm_t> second(r.n);
  NCCL_CHECK(ncclCommInitAll(second.data(), r.n, nullptr));
  const size_t count = 300000;
  fillInputs(r, count, 3);
  NCCL_CHECK(grouped(r, [&](int i) { return r.real.allReduce(r.input[i], r.theirs[i], count, ncclFloat32, ncclSum, r.comms[i], r.streams[i]); }));
  std::vector<unsigned long long*> mismatches(r.n);
  for (int i = 0; i < r.n; ++i) {
    cudaSetDevice(i);
    GPU_CHECK(cudaMalloc(&mismatches[i], sizeof(unsigned long long)));
    GPU_CHECK(cudaMemset(mismatches[i], 0, sizeof(unsigned long long)));
    GPU_CHECK(cudaDeviceSynchronize());  // the memset lands before the streams' kernels count
  }
  for (int k = 0; k < 1000; ++k) {
    NCCL_CHECK(grouped(r, [&](int i) {
      return ncclAllReduce(r.input[i], r.ours[i], count, ncclFloat32, ncclSum, (k & 1) ? second[i] : r.comms[i], r.streams[i]);
    }));
    // Every call's result, on the GPU: the input never changes, so neither does NCCL's answer.
    for (int i = 0; i < r.n; ++i) {
      cudaSetDevice(i);
      GPU_CHECK(countMismatches(r.ours[i], r.theirs[i], count, ncclFloat32, toleranceFor(ncclFloat32, r.n),
                                mismatches[i], r.streams[i]));
    }
  }
  syncAll(r);
  for (int i = 0; i < r.n; ++i) {
    unsigned long long found = 0;
    cudaSetDevice(i);
    GPU_CHECK(cudaMemcpy(&found, mismatches[i], sizeof(found), cudaMemcpyDeviceToHost));
    EXPECT_EQ(found, 0u) << "rank " << i << ": elements differing from NCCL over 1000 calls";
    cudaFree(mismatches[i]);
  }
  for (int i = 0; i < r.n; ++i) NCCL_CHECK(ncclCommDestroy(second[i]));
}

// An in-place chain x <- allreduce(x) alternating between two streams: any reordering between the
// streams changes the result, which must equal NCCL's chain on one stream.
TEST(Stress, OneCommunicatorFromTwoStreams) {
  Ranks& r = Ranks::get();
  if (!r.usable()) GTEST_SKIP() << "needs >= 2 GPUs";
  const size_t counts[] = {4096, 1u << 21};
  std::vector<cudaStream_t> other(r.n);
  for (int i = 0; i < r.n; ++i) {
    cudaSetDevice(i);
    GPU_CHECK(cudaStreamCreateWithFlags(&other[i], cudaStreamNonBlocking));
  }
  for (size_t count : counts) {
    fillInputs(r, count, 4);
    for (int i = 0; i < r.n; ++i) {
      cudaSetDevice(i);
      GPU_CHECK(cudaMemcpy(r.ours[i], r.input[i], count * 4, cudaMemcpyDeviceToDevice));
      GPU_CHECK(cudaMemcpy(r.theirs[i], r.input[i], count * 4, cudaMemcpyDeviceToDevice));
      GPU_CHECK(cudaDeviceSynchronize());  // device-to-device copies do not block the host
    }
    for (int k = 0; k < 24; ++k) {
      NCCL_CHECK(grouped(r, [&](int i) {
        return ncclAllReduce(r.ours[i], r.ours[i], count, ncclFloat32, ncclMax, r.comms[i], (k & 1) ? other[i] : r.streams[i]);
      }));
      NCCL_CHECK(grouped(r, [&](int i) {
        return ncclAllReduce(r.ours[i], r.ours[i], count, ncclFloat32, ncclSum, r.comms[i], (k & 1) ? r.streams[i] : other[i]);
      }));
      NCCL_CHECK(grouped(r, [&](int i) { return r.real.allReduce(r.theirs[i], r.theirs[i], count, ncclFloat32, ncclMax, r.comms[i], r.streams[i]); }));
      NCCL_CHECK(grouped(r, [&](int i) { return r.real.allReduce(r.theirs[i], r.theirs[i], count, ncclFloat32, ncclSum, r.comms[i], r.streams[i]); }));
    }
    for (int i = 0; i < r.n; ++i) {
      cudaSetDevice(i);
      GPU_CHECK(cudaStreamSynchronize(other[i]));
    }
    syncAll(r);
    expectSame(r, count * 4, "two streams");
  }
  for (int i = 0; i < r.n; ++i) cudaStreamDestroy(other[i]);
}

// Every rank passes the stream of the next rank's GPU: the group fails with NCCL's code for it
// (ncclUnhandledCudaError; calls inside a group run, and report, at its end) and launches
// nothing, so no rank waits for a peer's kernel; the communicator then still pairs its calls
// correctly.
TEST(Stress, StreamOfAnotherDeviceIsAnErrorNotAHang) {
  Ranks& r = Ranks::get();
  if (!r.usable()) GTEST_SKIP() << "needs >= 2 GPUs";
  const size_t count = 4096;
  fillInputs(r, count, 5);
  ASSERT_EQ(ncclGroupStart(), ncclSuccess);
  for (int i = 0; i < r.n; ++i) {
    cudaSetDevice(i);
    EXPECT_EQ(ncclAllReduce(r.input[i], r.ours[i], count, ncclFloat32, ncclSum, r.comms[i], r.streams[(i + 1) % r.n]),
              ncclSuccess)
        << "rank " << i;
  }
  EXPECT_EQ(ncclGroupEnd(), ncclUnhandledCudaError);
  NCCL_CHECK(grouped(r, [&](int i) { return ncclAllReduce(r.input[i], r.ours[i], count, ncclFloat32, ncclSum, r.comms[i], r.streams[i]); }));
  NCCL_CHECK(grouped(r, [&](int i) { return r.real.allReduce(r.input[i], r.theirs[i], count, ncclFloat32, ncclSum, r.comms[i], r.streams[i]); }));
  syncAll(r);
  expectSame(r, count * 4, "after the refused calls");
  EXPECT_STRNE(flashcclLastAlgorithm(r.comms[0]), "NCCL");
}

}  // namespace
}  // namespace flashccl_gpu_test
