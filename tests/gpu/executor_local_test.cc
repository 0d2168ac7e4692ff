// The MSCCL executor on ONE GPU: every rank of a shipped program runs as its own kernel launch on
// its own stream of device 0 (virtual_ranks.h). This checks the executor's logic (protocols, dependencies, tiling,
// stream stretches, counters across launches, graph replay) for 2, 4 and 8 ranks on a machine
// with a single GPU; tests/gpu/collectives_vs_nccl_test.cc checks it against NCCL across GPUs.
//
// Inputs are small integers, so every reduction order gives the same exact sum and the result
// can be computed on the host.
#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "base/config.h"
#include "msccl/algorithm_file.h"
#include "msccl/exec_image.h"
#include "msccl/executor.h"
#include "msccl/msccl_algorithm.h"
#include "transport/p2p/peer_memory.h"
#include "local_test_support.h"
#include "virtual_ranks.h"

namespace flashccl::msccl {
namespace {

using flashccl::testing::VirtualRanks;

std::vector<std::string> shippedAlgorithms() {
  std::vector<std::string> files;
  const std::string dir = std::string(FLASHCCL_SOURCE_DIR) + "/algorithms";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0) files.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Element `i` of rank `r`'s input: small integers, exact in every type we test.
int inputValue(int r, size_t i) { return static_cast<int>((i * 7 + static_cast<size_t>(r) * 3) % 13) + r + 1; }

template <typename T>
T fromInt(int v) {
  return static_cast<T>(v);
}
template <>
__nv_bfloat16 fromInt<__nv_bfloat16>(int v) {
  return __float2bfloat16(static_cast<float>(v));
}

struct Case {
  std::string file;
  ncclDataType_t dtype;
  size_t count;  // API count
  bool inPlace;
  bool graph;
};

template <typename T>
void runCase(const Program& program, const Case& c) {
  const int n = program.ngpus;
  VirtualRanks* ranks = VirtualRanks::shared(n);
  ASSERT_NE(ranks, nullptr) << "virtual ranks not set up";
  VirtualRanks& vr = *ranks;
  const CollKind kind = *program.coll;
  const size_t inCount = kind == CollKind::kReduceScatter ? c.count * n : c.count;
  const size_t outCount = kind == CollKind::kAllGather ? c.count * n : c.count;
  const size_t total = c.count * sizeof(T) * program.sizeMultiplier();
  const ExecProgramFacts facts = programFacts(program);
  ExecCallShape shape;
  const char* why = nullptr;
  ASSERT_TRUE(shapeCall(program, facts, vr.comm(0).layout, total, sizeof(T), kExecutorScratchBytes, &shape, &why))
      << why;
  ASSERT_LE(facts.threadBlocks, vr.comm(0).maxResidentBlocks);

  std::vector<std::vector<T>> inputs(n);
  std::vector<char*> in(n), out(n), scratch(n);
  std::vector<void*> images(n);
  std::vector<ExecLaunch> launches(n);
  for (int r = 0; r < n; ++r) {
    inputs[r].resize(inCount);
    for (size_t i = 0; i < inCount; ++i) inputs[r][i] = fromInt<T>(inputValue(r, i));
    const size_t outBytes = std::max(outCount, inCount) * sizeof(T);
    CUDA_OK(cudaMalloc(&out[r], outBytes));
    CUDA_OK(cudaMemset(out[r], 0xee, outBytes));
    if (c.inPlace) {
      // NCCL's in-place layouts: AllGather input is our shard of the output, ReduceScatter output
      // is our shard of the input.
      in[r] = kind == CollKind::kAllGather ? out[r] + r * c.count * sizeof(T) : out[r];
    } else {
      CUDA_OK(cudaMalloc(&in[r], inCount * sizeof(T)));
    }
    CUDA_OK(cudaMemcpy(in[r], inputs[r].data(), inCount * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&scratch[r], kExecutorScratchBytes));
    std::string error;
    const std::vector<char> image = buildExecImage(program, r, &error);
    ASSERT_FALSE(image.empty()) << error;
    CUDA_OK(cudaMalloc(&images[r], image.size()));
    CUDA_OK(cudaMemcpy(images[r], image.data(), image.size(), cudaMemcpyHostToDevice));
    ExecLaunch& l = launches[r];
    l.image = static_cast<const ExecImageHeader*>(images[r]);
    l.threadBlocks = static_cast<int>(program.gpus[r].threadBlocks.size());
    l.input = in[r];
    l.output = kind == CollKind::kReduceScatter && c.inPlace ? out[r] + r * c.count * sizeof(T) : out[r];
    l.scratch = scratch[r];
    l.shape = shape;
    l.dtype = c.dtype;
    l.reduce = ReduceSpec{};
  }
  // cudaMemset and a cudaMemcpy from pageable memory can return before they land, and they run
  // on the legacy stream, which the non-blocking streams of the calls do not wait for.
  CUDA_OK(cudaDeviceSynchronize());
  // In place ReduceScatter: the result lands in our shard of the buffer we reduce.
  std::vector<char*> result(n);
  for (int r = 0; r < n; ++r) result[r] = const_cast<char*>(launches[r].output);

  // Run it three times: counters, sequences and parities must carry over between launches. In
  // place, later runs start from the previous result, so only out of place repeats.
  std::string error;
  const bool ran = vr.run([&](int r) { return launchExecutor(vr.comm(r), launches[r], vr.stream(r)) == cudaSuccess; }, c.graph,
                          c.inPlace ? 1 : 3, &error);
  ASSERT_TRUE(ran) << error;
  ASSERT_EQ(ranks->deviceError(), kDeviceErrorNone) << "a kernel recorded a device error";

  for (int r = 0; r < n; ++r) {
    std::vector<T> got(outCount);
    CUDA_OK(cudaMemcpy(got.data(), result[r], outCount * sizeof(T), cudaMemcpyDeviceToHost));
    size_t bad = 0, firstBad = 0;
    for (size_t i = 0; i < outCount; ++i) {
      int want = 0;
      if (kind == CollKind::kAllGather) {
        want = inputValue(static_cast<int>(i / c.count), i % c.count);
      } else {
        const size_t at = kind == CollKind::kReduceScatter ? r * c.count + i : i;
        for (int q = 0; q < n; ++q) want += inputValue(q, at);
      }
      const T w = fromInt<T>(want);
      if (std::memcmp(&w, &got[i], sizeof(T)) != 0 && bad++ == 0) firstBad = i;
    }
    EXPECT_EQ(bad, 0u) << "rank " << r << ": " << bad << " wrong elements, first at " << firstBad;
  }
  for (int r = 0; r < n; ++r) {
    if (!c.inPlace) cudaFree(in[r]);
    cudaFree(out[r]);
    cudaFree(scratch[r]);
    cudaFree(images[r]);
  }
}

class ExecutorLocal : public ::testing::TestWithParam<std::string> {};

TEST_P(ExecutorLocal, ComputesTheCollective) {
  if (!testing::haveGpu()) GTEST_SKIP() << "no GPU";
  Program program;
  std::vector<Diagnostic> errors;
  ASSERT_EQ(loadAlgorithmFile(GetParam(), ValidationOptions(), &program, &errors), ncclSuccess);
  if (!program.coll) GTEST_SKIP();
  const size_t npl = program.nchunksperloop;
  const size_t mult = program.sizeMultiplier();
  // API counts whose total divides into the program's chunks: a one-element chunk, a small
  // message, one that is several Simple tiles per chunk (LL/LL128 only while it fits).
  auto countFor = [&](size_t chunkElems) { return chunkElems * npl / mult; };
  const std::vector<size_t> chunkElems = {1, 3, 1024, 40000, 600000};
  int cases = 0;
  size_t largest = 0;
  for (bool graph : {false, true}) {
    for (bool inPlace : {false, true}) {
      for (size_t e : chunkElems) {
        const size_t count = countFor(e);
        if (count == 0 || count * mult != e * npl) continue;
        VirtualRanks* vr = VirtualRanks::shared(program.ngpus);
        ASSERT_NE(vr, nullptr);
        ExecCallShape shape;
        const char* why = nullptr;
        const ExecProgramFacts facts = programFacts(program);
        if (!shapeCall(program, facts, vr->comm(0).layout, count * 4 * mult, 4, kExecutorScratchBytes, &shape, &why)) {
          continue;  // too large for this protocol's packet slots: supports() says no
        }
        SCOPED_TRACE(::testing::Message() << "count " << count << (inPlace ? " in-place" : " out-of-place")
                                        << (graph ? " graph" : " eager"));
        runCase<float>(program, {GetParam(), ncclFloat32, count, inPlace, graph});
        ++cases;
        largest = std::max(largest, count * 4 * mult);
        if (e <= 1024) {
          cases += 3;
          runCase<int32_t>(program, {GetParam(), ncclInt32, count, inPlace, graph});
          runCase<__nv_bfloat16>(program, {GetParam(), ncclBfloat16, count, inPlace, graph});
          runCase<int8_t>(program, {GetParam(), ncclInt8, count, inPlace, graph});
        }
        if (HasFatalFailure()) return;
      }
    }
  }
  // Every program must at least run its small sizes; the largest tells how far LL/LL128 reach.
  EXPECT_GE(cases, 16);
  std::printf("[ executor ] %s: %d cases, largest %zu bytes\n", GetParam().c_str(), cases, largest);
}

INSTANTIATE_TEST_SUITE_P(Shipped, ExecutorLocal, ::testing::ValuesIn(shippedAlgorithms()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.rfind('/') + 1);
                           name = name.substr(0, name.size() - 4);
                           for (char& ch : name) {
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace flashccl::msccl
