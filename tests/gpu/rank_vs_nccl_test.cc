// Across processes (one rank each; on one GPU through CUDA IPC): every dtype x op x size class x
// in-place/out-of-place x eager/graph of AllReduce, AllGather and ReduceScatter through flashccl,
// compared with the real NCCL's output of the same call on the same communicator, and the path
// checked: a case flashccl is meant to run must not have gone to NCCL. PreMulSum with a
// different scalar on every rank, on the host and on the device (changed between calls and
// between graph replays).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <tuple>

#include "case_checks.h"
#include "rank_process.h"
#include "test_inputs.h"

namespace flashccl_gpu_test {
namespace {

enum class Coll { kAllReduce, kAllGather, kReduceScatter };

struct Case {
  Coll coll;
  ncclDataType_t dtype;
  ncclRedOp_t op;
  size_t count;  // as in the NCCL call: AllGather sendcount, ReduceScatter recvcount
  bool inPlace;
  bool graph;
};

// Buffers big enough for the largest case, made once per process.
struct CaseBuffers {
  static constexpr size_t kBytes = (4u << 20) * 8 + 4096;
  char* ours = nullptr;
  char* theirs = nullptr;
  cudaStream_t stream = nullptr;
  static CaseBuffers& get() {
    static CaseBuffers b = [] {
      CaseBuffers made;
      cudaMalloc(&made.ours, kBytes);
      cudaMalloc(&made.theirs, kBytes);
      cudaStreamCreateWithFlags(&made.stream, cudaStreamNonBlocking);
      return made;
    }();
    return b;
  }
};

size_t inCount(const Case& c, int n) { return c.coll == Coll::kReduceScatter ? c.count * n : c.count; }
size_t outCount(const Case& c, int n) { return c.coll == Coll::kAllGather ? c.count * n : c.count; }

// Where send and recv sit in `buffer` for this rank (NCCL's in-place definitions).
const char* sendOf(const Case& c, int rank, const char* buffer) {
  return c.inPlace && c.coll == Coll::kAllGather ? buffer + rank * c.count * typeSize(c.dtype) : buffer;
}
char* recvOf(const Case& c, int rank, char* buffer) {
  return c.inPlace && c.coll == Coll::kReduceScatter ? buffer + rank * c.count * typeSize(c.dtype) : buffer;
}

ncclResult_t callFlashccl(const Case& c, ncclRedOp_t op, const void* s, void* d, ncclComm_t comm, cudaStream_t st) {
  switch (c.coll) {
    case Coll::kAllReduce: return ncclAllReduce(s, d, c.count, c.dtype, op, comm, st);
    case Coll::kAllGather: return ncclAllGather(s, d, c.count, c.dtype, comm, st);
    default: return ncclReduceScatter(s, d, c.count, c.dtype, op, comm, st);
  }
}

ncclResult_t callNccl(const RealCollectives& real, const Case& c, ncclRedOp_t op, const void* s, void* d,
                      ncclComm_t comm, cudaStream_t st) {
  switch (c.coll) {
    case Coll::kAllReduce: return real.allReduce(s, d, c.count, c.dtype, op, comm, st);
    case Coll::kAllGather: return real.allGather(s, d, c.count, c.dtype, comm, st);
    default: return real.reduceScatter(s, d, c.count, c.dtype, op, comm, st);
  }
}

// Puts this rank's input where the call reads it, the rest of the buffer poisoned.
void place(const Case& c, RankProcess& p, char* buffer, const std::vector<char>& input) {
  const size_t span = std::max(inCount(c, p.nranks), outCount(c, p.nranks)) * typeSize(c.dtype);
  CUDA_EXPECT(cudaMemset(buffer, 0xA5, span));
  copyIn(const_cast<char*>(c.inPlace ? sendOf(c, p.rank, buffer) : buffer + CaseBuffers::kBytes / 2), input);
  CUDA_EXPECT(cudaDeviceSynchronize());
}

const char* inputOf(const Case& c, int rank, const char* buffer) {
  return c.inPlace ? sendOf(c, rank, buffer) : buffer + CaseBuffers::kBytes / 2;
}

// Captures the call into a graph on `stream` and replays it `replays` times.
cudaError_t runCaptured(const std::function<ncclResult_t()>& call, cudaStream_t stream, int replays,
                        ncclResult_t* result) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  *result = call();
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  if (e == cudaSuccess) e = end;
  if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, graph, 0);
  for (int k = 0; k < replays && e == cudaSuccess; ++k) e = cudaGraphLaunch(exec, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  return e;
}

// One case, ours against NCCL's on the same communicator. `rankOp` is the op this rank passes.
void runCase(RankProcess& p, const Case& c, ncclRedOp_t rankOp, uint32_t seed) {
  CaseBuffers& b = CaseBuffers::get();
  const size_t size = typeSize(c.dtype);
  const std::vector<char> input = makeInput(c.dtype, inCount(c, p.nranks), p.rank, seed);
  place(c, p, b.theirs, input);
  place(c, p, b.ours, input);
  EXPECT_EQ(callNccl(p.real, c, rankOp, inputOf(c, p.rank, b.theirs), recvOf(c, p.rank, b.theirs), p.world, b.stream),
            ncclSuccess);
  CUDA_EXPECT(cudaStreamSynchronize(b.stream));
  auto ours = [&] {
    return callFlashccl(c, rankOp, inputOf(c, p.rank, b.ours), recvOf(c, p.rank, b.ours), p.world, b.stream);
  };
  if (c.graph) {
    ncclResult_t result = ncclSuccess;
    // Out of place, replay three times: a graph must stay right on every replay. In place
    // changes its own input: once.
    CUDA_EXPECT(runCaptured(ours, b.stream, c.inPlace ? 1 : 3, &result));
    EXPECT_EQ(result, ncclSuccess);
  } else {
    EXPECT_EQ(ours(), ncclSuccess);
    CUDA_EXPECT(cudaStreamSynchronize(b.stream));
  }
  ncclResult_t async = ncclSuccess;
  EXPECT_EQ(ncclCommGetAsyncError(p.world, &async), ncclSuccess);
  EXPECT_EQ(async, ncclSuccess);
  const char* algorithm = flashcclLastAlgorithm(p.world);
  const bool shouldRun = flashcclShouldRun(c.dtype, c.op, c.coll == Coll::kAllGather);
  EXPECT_EQ(std::string(algorithm ? algorithm : "?") != "NCCL", shouldRun)
      << "ran on " << (algorithm ? algorithm : "?") << "; flashccl " << (shouldRun ? "should" : "should not")
      << " take this call";
  const size_t outBytes = outCount(c, p.nranks) * size;
  const std::string diff = compareWithNccl(copyOut(recvOf(c, p.rank, b.ours), outBytes),
                                           copyOut(recvOf(c, p.rank, b.theirs), outBytes), c.dtype, p.nranks);
  EXPECT_EQ(diff, "") << "rank " << p.rank;
}

using Param = std::tuple<int, int, int, int, bool, bool>;  // coll, dtype, op, size class, in place, graph

size_t countFor(int sizeClass, ncclDataType_t dtype) {
  // One element, an odd count, 256 KB (the one-shot's range) and 4 MB (chunked) per rank.
  if (sizeClass == 0) return 1;
  if (sizeClass == 1) return 1001;
  return (sizeClass == 2 ? (256u << 10) : (4u << 20)) / typeSize(dtype);
}

class RankVsNccl : public ::testing::TestWithParam<Param> {};

TEST_P(RankVsNccl, MatchesNcclAndRanWhereItShould) {
  RANK_PROCESS_OR_SKIP(p);
  const auto [coll, dtype, op, sizeClass, inPlace, graph] = GetParam();
  Case c{static_cast<Coll>(coll), static_cast<ncclDataType_t>(dtype), static_cast<ncclRedOp_t>(op), 0, inPlace, graph};
  c.count = countFor(sizeClass, c.dtype);
  runCase(*p, c, c.op, static_cast<uint32_t>(c.count));
}

std::string caseName(const ::testing::TestParamInfo<Param>& info) {
  const auto [coll, dtype, op, sizeClass, inPlace, graph] = info.param;
  static const char* colls[] = {"AllReduce", "AllGather", "ReduceScatter"};
  static const char* sizes[] = {"one", "odd", "256KB", "4MB"};
  std::ostringstream name;
  name << colls[coll] << "_" << typeName(static_cast<ncclDataType_t>(dtype));
  if (coll != 1) name << "_" << opName(static_cast<ncclRedOp_t>(op));
  name << "_" << sizes[sizeClass] << (inPlace ? "_inplace" : "_outofplace") << (graph ? "_graph" : "_eager");
  return name.str();
}

INSTANTIATE_TEST_SUITE_P(Reductions, RankVsNccl,
                         ::testing::Combine(::testing::Values(0, 2), ::testing::Range(0, 12), ::testing::Range(0, 5),
                                            ::testing::Range(0, 4), ::testing::Bool(), ::testing::Bool()),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Gathers, RankVsNccl,
                         ::testing::Combine(::testing::Values(1), ::testing::Range(0, 12), ::testing::Values(0),
                                            ::testing::Range(0, 4), ::testing::Bool(), ::testing::Bool()),
                         caseName);

// --- PreMulSum: a different scalar on every rank --------------------------------------------------

// Every rank its own scalar: 0.5 * (rank + 1 + variant) for floats (exact in every type, fp8
// too), rank + 2 + variant for integers.
std::vector<char> scalarFor(ncclDataType_t dtype, int rank, int variant) {
  const bool integer = dtype <= ncclUint64;
  return valueBytes(dtype, integer ? rank + 2 + variant : 0.5 * (rank + 1 + variant));
}

// One graph captured with a device-resident scalar, replayed after each change of the scalar:
// every replay must match NCCL with the value the scalar has then.
void replaysReadTheScalarAnew(RankProcess& p, ncclDataType_t t, Coll coll, ncclRedOp_t op, void* deviceScalar) {
  CaseBuffers& b = CaseBuffers::get();
  const Case c{coll, t, static_cast<ncclRedOp_t>(ncclNumOps), 4099, false, true};
  const std::vector<char> input = makeInput(t, inCount(c, p.nranks), p.rank, 11);
  place(c, p, b.ours, input);
  place(c, p, b.theirs, input);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_EXPECT(cudaStreamBeginCapture(b.stream, cudaStreamCaptureModeThreadLocal));
  EXPECT_EQ(callFlashccl(c, op, inputOf(c, p.rank, b.ours), b.ours, p.world, b.stream), ncclSuccess);
  CUDA_EXPECT(cudaStreamEndCapture(b.stream, &graph));
  CUDA_EXPECT(cudaGraphInstantiate(&exec, graph, 0));
  const size_t outBytes = outCount(c, p.nranks) * typeSize(t);
  for (int variant : {2, 0, 3}) {
    copyIn(deviceScalar, scalarFor(t, p.rank, variant));
    EXPECT_EQ(callNccl(p.real, c, op, inputOf(c, p.rank, b.theirs), b.theirs, p.world, b.stream), ncclSuccess);
    CUDA_EXPECT(cudaGraphLaunch(exec, b.stream));
    CUDA_EXPECT(cudaStreamSynchronize(b.stream));
    EXPECT_EQ(compareWithNccl(copyOut(b.ours, outBytes), copyOut(b.theirs, outBytes), t, p.nranks), "")
        << "replay with scalar variant " << variant;
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
}

class RankPreMulSum : public ::testing::TestWithParam<std::tuple<int, int, bool>> {};  // dtype, coll, device

TEST_P(RankPreMulSum, EveryRankItsOwnScalarMatchesNccl) {
  RANK_PROCESS_OR_SKIP(p);
  const auto [dtype, coll, onDevice] = GetParam();
  const ncclDataType_t t = static_cast<ncclDataType_t>(dtype);
  std::vector<char> scalar = scalarFor(t, p->rank, 0);
  void* deviceScalar = nullptr;
  if (onDevice) {
    CUDA_EXPECT(cudaMalloc(&deviceScalar, scalar.size()));
    copyIn(deviceScalar, scalar);
  }
  ncclRedOp_t op;
  ASSERT_EQ(ncclRedOpCreatePreMulSum(&op, onDevice ? deviceScalar : scalar.data(), t,
                                     onDevice ? ncclScalarDevice : ncclScalarHostImmediate, p->world),
            ncclSuccess);
  for (size_t count : {size_t(1), size_t(1001), size_t(300000)}) {
    Case c{static_cast<Coll>(coll), t, static_cast<ncclRedOp_t>(ncclNumOps), count, false, false};
    runCase(*p, c, op, 7);
    c.inPlace = true;
    runCase(*p, c, op, 8);
    if (onDevice) {
      // A device scalar is read when the kernel runs: a later call sees a new value.
      copyIn(deviceScalar, scalarFor(t, p->rank, 1));
      c.inPlace = false;
      runCase(*p, c, op, 9);
      copyIn(deviceScalar, scalar);
    }
  }
  if (onDevice) replaysReadTheScalarAnew(*p, t, static_cast<Coll>(coll), op, deviceScalar);
  EXPECT_EQ(ncclRedOpDestroy(op, p->world), ncclSuccess);
  if (deviceScalar) cudaFree(deviceScalar);
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, RankPreMulSum,
    ::testing::Combine(::testing::Range(0, 12), ::testing::Values(0, 2), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<int, int, bool>>& info) {
      return std::string(typeName(static_cast<ncclDataType_t>(std::get<0>(info.param)))) +
             (std::get<1>(info.param) == 0 ? "_AllReduce" : "_ReduceScatter") +
             (std::get<2>(info.param) ? "_deviceScalar" : "_hostScalar");
    });

// --- XML programs: FLASHCCL_ALGO names one (the launcher runs this once per shipped file) --------

TEST(RankXmlProgram, MatchesNcclWhereverItRuns) {
  RANK_PROCESS_OR_SKIP(p);
  const char* forced = std::getenv("FLASHCCL_ALGO");
  if (forced == nullptr || std::strstr(forced, ".xml") == nullptr) GTEST_SKIP() << "FLASHCCL_ALGO names no XML program";
  const char* slash = std::strrchr(forced, '/');
  const std::string name = slash ? slash + 1 : forced;
  const Coll coll = name.rfind("allgather", 0) == 0       ? Coll::kAllGather
                    : name.rfind("reducescatter", 0) == 0 ? Coll::kReduceScatter
                                                          : Coll::kAllReduce;
  const flashcclColl_t planned = coll == Coll::kAllGather       ? flashcclAllGather
                                 : coll == Coll::kReduceScatter ? flashcclReduceScatter
                                                                : flashcclAllReduce;
  int ran = 0, skipped = 0;
  for (ncclDataType_t dtype : {ncclFloat32, ncclFloat16, ncclBfloat16, ncclInt32}) {
    for (ncclRedOp_t op : {ncclSum, ncclMax}) {
      if (coll == Coll::kAllGather && op != ncclSum) continue;
      for (size_t count : {size_t(8), size_t(1001), size_t(65536), size_t(1u << 20)}) {
        for (bool inPlace : {false, true}) {
          for (bool graph : {false, true}) {
            const char* why = nullptr;
            const char* plan = flashcclPlan(p->world, planned, count, dtype, op, inPlace ? 1 : 0, &why);
            if (plan == nullptr || name != plan) {
              ++skipped;  // outside the program's sizes, types or ops: NCCL or a built-in runs it
              continue;
            }
            const Case c{coll, dtype, op, count, inPlace, graph};
            SCOPED_TRACE(std::string(typeName(dtype)) + " " + opName(op) + " count " + std::to_string(count) +
                         (inPlace ? " in place" : " out of place") + (graph ? " graph" : " eager"));
            runCase(*p, c, op, static_cast<uint32_t>(count));
            const char* last = flashcclLastAlgorithm(p->world);
            EXPECT_EQ(std::string(last ? last : "?"), name);
            ++ran;
          }
        }
      }
    }
  }
  std::printf("[ xml ] %s: %d cases ran on the program, %d left to others\n", name.c_str(), ran, skipped);
  EXPECT_GT(ran, 0) << name << " ran no case";
}

}  // namespace
}  // namespace flashccl_gpu_test
