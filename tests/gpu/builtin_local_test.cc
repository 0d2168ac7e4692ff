// The built-in kernels at 2, 4 and 8 ranks on ONE GPU (virtual_ranks.h): every rank's launch()
// runs on its own stream of device 0 against its own buffers, exactly as on an NVLink box. Inputs
// are small integers, so any reduction order gives the same exact result and the host computes
// it. tests/gpu/collectives_vs_nccl_test.cc compares with NCCL across real GPUs.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "algo/algorithm.h"
#include "base/coll_call.h"
#include "transport/p2p/peer_memory.h"
#include "runtime/call_header.h"
#include "local_test_support.h"
#include "virtual_ranks.h"

namespace flashccl {
namespace {

using testing::VirtualRanks;

int inputValue(int rank, size_t i) { return static_cast<int>((i * 7 + static_cast<size_t>(rank) * 3) % 13) + rank + 1; }

// Host bytes of the integer `v` as `dtype` (exact for the values used here).
void encode(ncclDataType_t dtype, long long v, char* out) {
  switch (dtype) {
    case ncclInt8: { int8_t x = static_cast<int8_t>(v); std::memcpy(out, &x, 1); break; }
    case ncclUint8: { uint8_t x = static_cast<uint8_t>(v); std::memcpy(out, &x, 1); break; }
    case ncclInt32: { int32_t x = static_cast<int32_t>(v); std::memcpy(out, &x, 4); break; }
    case ncclInt64: { int64_t x = v; std::memcpy(out, &x, 8); break; }
    case ncclFloat16: { __half x = __float2half(static_cast<float>(v)); std::memcpy(out, &x, 2); break; }
    case ncclBfloat16: { __nv_bfloat16 x = __float2bfloat16(static_cast<float>(v)); std::memcpy(out, &x, 2); break; }
    case ncclFloat32: { float x = static_cast<float>(v); std::memcpy(out, &x, 4); break; }
    case ncclFloat64: { double x = static_cast<double>(v); std::memcpy(out, &x, 8); break; }
    default: FAIL() << "type not used here";
  }
}

long long fold(ncclRedOp_t op, long long acc, long long v) {
  switch (op) {
    case ncclMax: return acc > v ? acc : v;
    case ncclMin: return acc < v ? acc : v;
    default: return acc + v;
  }
}

struct Case {
  const char* algorithm;
  int nranks;
  ncclDataType_t dtype;
  ncclRedOp_t op;
  size_t count;  // API count
  bool inPlace;
  bool graph;
};

std::string describe(const Case& c) {
  char text[200];
  std::snprintf(text, sizeof(text), "%s ranks=%d dtype=%d op=%d count=%zu %s %s", c.algorithm, c.nranks,
                static_cast<int>(c.dtype), static_cast<int>(c.op), c.count, c.inPlace ? "in-place" : "out-of-place",
                c.graph ? "graph" : "eager");
  return text;
}

// Runs the case; *ran is false when the algorithm does not take it (supports() said no).
// `own`: ranks of the test's own (else the shared set for c.nranks).
void runCase(const Case& c, bool* ran, VirtualRanks* own = nullptr) {
  *ran = false;
  Algorithm* algorithm = findBuiltinAlgorithm(c.algorithm);
  ASSERT_NE(algorithm, nullptr);
  VirtualRanks* ranks = own ? own : VirtualRanks::shared(c.nranks);
  ASSERT_NE(ranks, nullptr) << "cannot set up " << c.nranks << " virtual ranks";
  const int n = c.nranks;
  const CollKind kind = algorithm->kind();
  const size_t elem = dtypeSize(c.dtype);
  const size_t inCount = kind == CollKind::kReduceScatter ? c.count * n : c.count;
  const size_t outCount = kind == CollKind::kAllGather ? c.count * n : c.count;
  const size_t bufferCount = inCount > outCount ? inCount : outCount;

  std::vector<char*> base(n), in(n), out(n);
  std::vector<CollCall> calls(n);
  for (int r = 0; r < n; ++r) {
    std::vector<char> host(inCount * elem);
    for (size_t i = 0; i < inCount; ++i) encode(c.dtype, inputValue(r, i), host.data() + i * elem);
    CUDA_OK(cudaMalloc(&base[r], bufferCount * elem));
    CUDA_OK(cudaMemset(base[r], 0xee, bufferCount * elem));
    if (c.inPlace) {
      out[r] = base[r];
      in[r] = kind == CollKind::kAllGather ? base[r] + r * c.count * elem : base[r];
      if (kind == CollKind::kReduceScatter) out[r] = base[r] + r * c.count * elem;
    } else {
      out[r] = base[r];
      CUDA_OK(cudaMalloc(&in[r], inCount * elem));
    }
    CUDA_OK(cudaMemcpy(in[r], host.data(), host.size(), cudaMemcpyHostToDevice));
    calls[r] = CollCall{kind, in[r], out[r], c.count, c.dtype, c.op, 0, nullptr, ranks->stream(r)};
  }
  // cudaMemset and a cudaMemcpy from pageable memory can return before they land, and they run
  // on the legacy stream, which the non-blocking streams of the calls do not wait for.
  CUDA_OK(cudaDeviceSynchronize());
  auto release = [&] {
    for (int r = 0; r < n; ++r) {
      if (!c.inPlace) cudaFree(in[r]);
      cudaFree(base[r]);
    }
  };
  if (!algorithm->supports(calls[0], ranks->context(0))) {
    release();
    return;
  }
  *ran = true;

  // Out of place runs three times: sequences, parities and chunk counters carry over launches.
  std::string error;
  const bool ran3 = ranks->run([&](int r) { return algorithm->launch(calls[r], ranks->context(r)) == ncclSuccess; },
                               c.graph, c.inPlace ? 1 : 3, &error);
  ASSERT_TRUE(ran3) << error;
  // A kernel that stopped early (an abort, a call mismatch) leaves its output unwritten: say so.
  ASSERT_EQ(ranks->deviceError(), kDeviceErrorNone) << "a kernel recorded a device error";

  std::vector<char> want(elem), got(outCount * elem);
  for (int r = 0; r < n; ++r) {
    CUDA_OK(cudaMemcpy(got.data(), out[r], got.size(), cudaMemcpyDeviceToHost));
    size_t bad = 0, firstBad = 0;
    for (size_t i = 0; i < outCount; ++i) {
      long long v = 0;
      if (kind == CollKind::kAllGather) {
        v = inputValue(static_cast<int>(i / c.count), i % c.count);
      } else {
        const size_t at = kind == CollKind::kReduceScatter ? r * c.count + i : i;
        v = inputValue(0, at);
        for (int q = 1; q < n; ++q) v = fold(c.op, v, inputValue(q, at));
      }
      encode(c.dtype, v, want.data());
      if (std::memcmp(want.data(), got.data() + i * elem, elem) != 0 && bad++ == 0) firstBad = i;
    }
    EXPECT_EQ(bad, 0u) << "rank " << r << ": " << bad << " of " << outCount << " wrong, first at " << firstBad;
  }
  release();
}

class BuiltinLocal : public ::testing::TestWithParam<std::tuple<const char*, int>> {};

TEST_P(BuiltinLocal, ComputesTheCollective) {
  if (!testing::haveGpu()) GTEST_SKIP() << "no GPU";
  const char* algorithm = std::get<0>(GetParam());
  const int n = std::get<1>(GetParam());
  int ran = 0;
  // Every size class, float sum, both placements, eager and graph.
  for (size_t count : {size_t(1), size_t(7), size_t(1001), size_t(65539), size_t(1000003), size_t(9u << 20)}) {
    for (bool inPlace : {false, true}) {
      for (bool graph : {false, true}) {
        const Case c{algorithm, n, ncclFloat32, ncclSum, count, inPlace, graph};
        SCOPED_TRACE(describe(c));
        bool did = false;
        runCase(c, &did);
        ran += did;
        if (HasFatalFailure()) return;
      }
    }
  }
  // Every type and op at two small odd sizes.
  for (ncclDataType_t dtype : {ncclInt8, ncclUint8, ncclInt32, ncclInt64, ncclFloat16, ncclBfloat16, ncclFloat64}) {
    for (ncclRedOp_t op : {ncclSum, ncclMax, ncclMin}) {
      for (size_t count : {size_t(7), size_t(4099)}) {
        const Case c{algorithm, n, dtype, op, count, false, false};
        SCOPED_TRACE(describe(c));
        bool did = false;
        runCase(c, &did);
        ran += did;
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_GE(ran, 8) << "the algorithm took almost no case";
  std::printf("[ builtin ] %s at %d ranks: %d cases\n", algorithm, n, ran);
}

// LL flags are 32 bits, so the packet slots are swept every so many launches
// (DeviceComm::sweepInterval). With a sweep every 4 launches, many launches of the packet kernels
// at shrinking and growing sizes (stale packets of large calls left in the slots) stay right.
TEST(PacketSlots, SweptEveryFewLaunchesStillRight) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) GTEST_SKIP() << "no GPU";
  for (int n : {2, 4}) {
    std::unique_ptr<VirtualRanks> ranks = VirtualRanks::create(n, /*sweepInterval=*/4);
    ASSERT_NE(ranks, nullptr);
    int ran = 0;
    for (int round = 0; round < 6; ++round) {
      for (const char* algorithm : {"allreduce_oneshot", "allgather_direct", "reducescatter_direct"}) {
        for (size_t count : {size_t(60000), size_t(3), size_t(1001), size_t(20000)}) {
          const Case c{algorithm, n, ncclFloat32, ncclSum, count, round % 2 == 1, round % 3 == 2};
          SCOPED_TRACE(describe(c));
          bool did = false;
          runCase(c, &did, ranks.get());
          ran += did;
          if (HasFatalFailure()) return;
        }
      }
    }
    EXPECT_GT(ran, 40);
  }
}

// Ranks that pass different counts must neither hang nor hand back data: every kernel announces
// its call, compares its peers' headers before it consumes anything of theirs, and stops with
// kDeviceErrorCallMismatch, recording both calls.
class CallMismatch : public ::testing::TestWithParam<std::tuple<const char*, size_t>> {};

TEST_P(CallMismatch, StopsWithAnErrorInsteadOfHanging) {
  if (!testing::haveGpu()) GTEST_SKIP() << "no GPU";
  Algorithm* algorithm = findBuiltinAlgorithm(std::get<0>(GetParam()));
  ASSERT_NE(algorithm, nullptr);
  const size_t count = std::get<1>(GetParam());
  const int n = 2;
  VirtualRanks* ranks = VirtualRanks::shared(n);
  ASSERT_NE(ranks, nullptr);
  ranks->clearErrors();
  std::vector<char*> in(n), out(n);
  for (int r = 0; r < n; ++r) {
    const size_t mine = count * (r + 1);  // rank 1 passes twice rank 0's count
    const size_t bytes = mine * sizeof(float) * n;
    CUDA_OK(cudaMalloc(&in[r], bytes));
    CUDA_OK(cudaMalloc(&out[r], bytes));
    CUDA_OK(cudaMemset(in[r], 0, bytes));
    const CollCall call{algorithm->kind(), in[r], out[r], mine, ncclFloat32, ncclSum, 0, nullptr, ranks->stream(r)};
    ASSERT_TRUE(algorithm->supports(call, ranks->context(r)));
    ranks->context(r).peers()->stampCall(makeCallHeader(call, /*sequence=*/1, /*algorithm=*/1), 1);
    ASSERT_EQ(algorithm->launch(call, ranks->context(r)), ncclSuccess);
  }
  const bool finished = ranks->finish(20.0);
  const int error = ranks->deviceError();
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(ranks->errorRecord(r).code, kDeviceErrorCallMismatch) << "rank " << r;
    EXPECT_EQ(ranks->errorRecord(r).peer, 1 - r);
    EXPECT_EQ(ranks->errorRecord(r).mine.count, count * (r + 1));
    EXPECT_EQ(ranks->errorRecord(r).theirs.count, count * (2 - r));
  }
  VirtualRanks::forget(n);  // the ranks' sequences no longer agree
  EXPECT_TRUE(finished) << "the kernels hung";
  EXPECT_EQ(error, kDeviceErrorCallMismatch);
  for (int r = 0; r < n; ++r) {
    cudaFree(in[r]);
    cudaFree(out[r]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Builtins, CallMismatch,
    ::testing::Values(std::make_tuple("allreduce_oneshot", size_t(1000)),
                      std::make_tuple("allreduce_twoshot", size_t(4u << 20)),
                      std::make_tuple("allgather_direct", size_t(1000)),
                      std::make_tuple("allgather_direct", size_t(4u << 20)),
                      std::make_tuple("reducescatter_direct", size_t(1000)),
                      std::make_tuple("reducescatter_direct", size_t(4u << 20))),
    [](const ::testing::TestParamInfo<std::tuple<const char*, size_t>>& info) {
      return std::string(std::get<0>(info.param)) + "_" + std::to_string(std::get<1>(info.param));
    });

INSTANTIATE_TEST_SUITE_P(
    Ranks, BuiltinLocal,
    ::testing::Combine(::testing::Values("allreduce_oneshot", "allreduce_twoshot", "allgather_direct",
                                         "reducescatter_direct"),
                       ::testing::Values(2, 4, 8)),
    [](const ::testing::TestParamInfo<std::tuple<const char*, int>>& info) {
      return std::string(std::get<0>(info.param)) + "_" + std::to_string(std::get<1>(info.param)) + "ranks";
    });

}  // namespace
}  // namespace flashccl
