// The MSCCL executor on ONE GPU: every rank of a shipped program runs as its own kernel launch on
// its own stream of device 0, each with its own communication buffer, all buffers reachable as
// "peers" (same device). This checks the executor's logic (protocols, dependencies, tiling,
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

#include "core/config.h"
#include "msccl/algorithm_file.h"
#include "msccl/exec_image.h"
#include "msccl/executor.h"
#include "msccl/msccl_algorithm.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl::msccl {
namespace {

#define CUDA_OK(call)                                                                  \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_);             \
  } while (0)

constexpr size_t kBufferBytes = 32u << 20;  // per virtual rank: 8 ranks fit any GPU

// N ranks' peer memory on one device, set up once per rank count.
struct VirtualRanks {
  int n = 0;
  std::vector<char*> buffers;
  std::vector<uint64_t*> state;
  std::vector<DeviceComm> comms;
  std::vector<cudaStream_t> streams;
  int* hostError = nullptr;
  int* hostAbort = nullptr;

  explicit VirtualRanks(int nranks) : n(nranks) {
    Config config = Config::get();
    config.bufferBytes = kBufferBytes;
    BufferLayout layout{};
    const char* why = nullptr;
    if (!computeBufferLayout(peerLayoutRequest(config, n), &layout, &why)) return;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    cudaHostAlloc(&hostError, sizeof(int), cudaHostAllocMapped);
    cudaHostAlloc(&hostAbort, sizeof(int), cudaHostAllocMapped);
    *hostError = 0;
    *hostAbort = 0;
    int* errDev = nullptr;
    int* abortDev = nullptr;
    cudaHostGetDevicePointer(reinterpret_cast<void**>(&errDev), hostError, 0);
    cudaHostGetDevicePointer(reinterpret_cast<void**>(&abortDev), hostAbort, 0);
    const size_t stateWords = 2 + kChunkCounterCount + kMaxExecThreadBlocks;
    buffers.resize(n);
    state.resize(n);
    streams.resize(n);
    for (int r = 0; r < n; ++r) {
      cudaMalloc(&buffers[r], kBufferBytes);
      cudaMemset(buffers[r], 0, kBufferBytes);
      cudaMalloc(&state[r], stateWords * sizeof(uint64_t));
      cudaMemset(state[r], 0, stateWords * sizeof(uint64_t));
      cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking);
    }
    for (int r = 0; r < n; ++r) {
      DeviceComm c{};
      c.rank = r;
      c.nranks = n;
      c.smCount = prop.multiProcessorCount;
      // All ranks share one GPU here: each may use its share of the resident blocks.
      c.maxResidentBlocks = 2 * prop.multiProcessorCount / n;
      c.bufferBytes = kBufferBytes;
      for (int p = 0; p < n; ++p) c.buffers[p] = buffers[p];
      c.layout = layout;
      c.llSequence = state[r];
      c.chunkCounters = state[r] + 2;
      c.threadBlockFlags = state[r] + 2 + kChunkCounterCount;
      c.errorWord = errDev;
      c.abortFlag = abortDev;
      comms.push_back(c);
    }
    cudaDeviceSynchronize();
  }
  ~VirtualRanks() {
    for (int r = 0; r < static_cast<int>(buffers.size()); ++r) {
      cudaFree(buffers[r]);
      cudaFree(state[r]);
      cudaStreamDestroy(streams[r]);
    }
    cudaFreeHost(hostError);
    cudaFreeHost(hostAbort);
  }

  // Waits for every stream; on a hang, raises the abort flag so the kernels return, and fails.
  bool finish(double seconds) {
    const auto start = std::chrono::steady_clock::now();
    while (true) {
      bool done = true;
      for (cudaStream_t s : streams) done = done && cudaStreamQuery(s) != cudaErrorNotReady;
      if (done) break;
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
        *reinterpret_cast<volatile int*>(hostAbort) = 1;
        cudaDeviceSynchronize();
        return false;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return cudaDeviceSynchronize() == cudaSuccess;
  }
};

VirtualRanks& ranksFor(int n) {
  static std::unique_ptr<VirtualRanks> cache[kMaxPeerRanks + 1];
  if (!cache[n]) cache[n].reset(new VirtualRanks(n));
  return *cache[n];
}

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
  VirtualRanks& vr = ranksFor(n);
  ASSERT_EQ(static_cast<int>(vr.comms.size()), n) << "virtual ranks not set up";
  const CollKind kind = *program.coll;
  const size_t inCount = kind == CollKind::kReduceScatter ? c.count * n : c.count;
  const size_t outCount = kind == CollKind::kAllGather ? c.count * n : c.count;
  const size_t total = c.count * sizeof(T) * program.sizeMultiplier();
  const ExecProgramFacts facts = programFacts(program);
  ExecCallShape shape;
  const char* why = nullptr;
  ASSERT_TRUE(shapeCall(program, facts, vr.comms[0].layout, total, sizeof(T), kExecutorScratchBytes, &shape, &why))
      << why;
  ASSERT_LE(facts.threadBlocks, vr.comms[0].maxResidentBlocks);

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
  // In place ReduceScatter: the result lands in our shard of the buffer we reduce.
  std::vector<char*> result(n);
  for (int r = 0; r < n; ++r) result[r] = const_cast<char*>(launches[r].output);

  std::vector<cudaGraphExec_t> execs(n, nullptr);
  if (c.graph) {
    for (int r = 0; r < n; ++r) {
      cudaGraph_t graph;
      CUDA_OK(cudaStreamBeginCapture(vr.streams[r], cudaStreamCaptureModeThreadLocal));
      ASSERT_TRUE(launchExecutor(vr.comms[r], launches[r], vr.streams[r]));
      CUDA_OK(cudaStreamEndCapture(vr.streams[r], &graph));
      CUDA_OK(cudaGraphInstantiate(&execs[r], graph, 0));
      cudaGraphDestroy(graph);
    }
  }
  // Run it three times: counters, sequences and parities must carry over between launches. In
  // place, later runs start from the previous result, so only out of place repeats.
  const int runs = c.inPlace ? 1 : 3;
  for (int run = 0; run < runs; ++run) {
    for (int r = 0; r < n; ++r) {
      if (c.graph) {
        CUDA_OK(cudaGraphLaunch(execs[r], vr.streams[r]));
      } else {
        ASSERT_TRUE(launchExecutor(vr.comms[r], launches[r], vr.streams[r]));
        CUDA_OK(cudaGetLastError());
      }
    }
    ASSERT_TRUE(vr.finish(20.0)) << "executor hung or failed (run " << run << ")";
  }

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
    if (execs[r]) cudaGraphExecDestroy(execs[r]);
    if (!c.inPlace) cudaFree(in[r]);
    cudaFree(out[r]);
    cudaFree(scratch[r]);
    cudaFree(images[r]);
  }
}

class ExecutorLocal : public ::testing::TestWithParam<std::string> {};

TEST_P(ExecutorLocal, ComputesTheCollective) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) GTEST_SKIP() << "no GPU";
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
        VirtualRanks& vr = ranksFor(program.ngpus);
        ExecCallShape shape;
        const char* why = nullptr;
        const ExecProgramFacts facts = programFacts(program);
        if (!shapeCall(program, facts, vr.comms[0].layout, count * 4 * mult, 4, kExecutorScratchBytes, &shape, &why)) {
          continue;  // too large for this protocol's packet slots: supports() says no
        }
        SCOPED_TRACE(testing::Message() << "count " << count << (inPlace ? " in-place" : " out-of-place")
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
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.rfind('/') + 1);
                           name = name.substr(0, name.size() - 4);
                           for (char& ch : name) {
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace flashccl::msccl
