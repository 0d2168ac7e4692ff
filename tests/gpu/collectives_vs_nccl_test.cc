// Every dtype x op x size class x in-place/out-of-place x eager/graph, for AllReduce, AllGather and
// ReduceScatter through flashccl, compared with the real NCCL's output of the same call on the
// same communicators. Two ranks: bitwise. More ranks: bitwise for integers; floats must agree
// across ranks (and with NCCL within rounding, which the perf tool checks).
#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "case_checks.h"
#include "gpu_test_env.h"

namespace flashccl_gpu_test {
namespace {

enum class Coll { kAllReduce, kAllGather, kReduceScatter };
const char* collName(Coll c) {
  return c == Coll::kAllReduce ? "AllReduce" : c == Coll::kAllGather ? "AllGather" : "ReduceScatter";
}

struct Case {
  Coll coll;
  ncclDataType_t dtype;
  ncclRedOp_t op;
  size_t count;  // as in the NCCL call: AllGather sendcount, ReduceScatter recvcount
  bool inPlace;
  bool graph;
  // Per-rank op handles when they differ between communicators: NCCL mangles the handles of
  // ncclRedOpCreatePreMulSum ops per communicator. nullptr: `op` on every rank.
  const ncclRedOp_t* rankOps = nullptr;
  ncclRedOp_t opFor(int rank) const { return rankOps ? rankOps[rank] : op; }
};

class Buffers {
 public:
  Buffers(Ranks& r, const Case& c) : r_(r), c_(c), size_(typeSize(c.dtype)) {}
  size_t inCount() const { return c_.coll == Coll::kReduceScatter ? c_.count * r_.n : c_.count; }
  size_t outCount() const { return c_.coll == Coll::kAllGather ? c_.count * r_.n : c_.count; }
  const void* send(int rank, char* buf) const {
    if (!c_.inPlace) return r_.input[rank];
    return c_.coll == Coll::kAllGather ? buf + rank * c_.count * size_ : buf;
  }
  void* recv(int rank, char* buf) const {
    return (c_.inPlace && c_.coll == Coll::kReduceScatter) ? buf + rank * c_.count * size_ : buf;
  }

 private:
  Ranks& r_;
  const Case& c_;
  size_t size_;
};

ncclResult_t callFlashccl(const Case& c, int rank, const void* s, void* d, ncclComm_t comm, cudaStream_t st) {
  switch (c.coll) {
    case Coll::kAllReduce: return ncclAllReduce(s, d, c.count, c.dtype, c.opFor(rank), comm, st);
    case Coll::kAllGather: return ncclAllGather(s, d, c.count, c.dtype, comm, st);
    default: return ncclReduceScatter(s, d, c.count, c.dtype, c.opFor(rank), comm, st);
  }
}

ncclResult_t callNccl(const RealNccl& real, const Case& c, int rank, const void* s, void* d,
                      ncclComm_t comm, cudaStream_t st) {
  switch (c.coll) {
    case Coll::kAllReduce: return real.allReduce(s, d, c.count, c.dtype, c.opFor(rank), comm, st);
    case Coll::kAllGather: return real.allGather(s, d, c.count, c.dtype, comm, st);
    default: return real.reduceScatter(s, d, c.count, c.dtype, c.opFor(rank), comm, st);
  }
}

// Inputs are the same for every op, placement and mode of a (type, count): make them once.
const std::vector<char>& cachedInput(ncclDataType_t dtype, size_t count, int rank, uint32_t seed) {
  static std::map<std::tuple<int, size_t, int, uint32_t>, std::vector<char>> cache;
  static int cachedType = -1;
  if (cachedType != static_cast<int>(dtype)) {
    cache.clear();
    cachedType = static_cast<int>(dtype);
  }
  auto key = std::make_tuple(static_cast<int>(dtype), count, rank, seed);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, makeInput(dtype, count, rank, seed)).first;
  return it->second;
}

void prepare(Ranks& r, const Case& c, const Buffers& b, uint32_t seed) {
  const size_t size = typeSize(c.dtype);
  for (int i = 0; i < r.n; ++i) {
    cudaSetDevice(i);
    const std::vector<char>& host = cachedInput(c.dtype, b.inCount(), i, seed);
    GPU_CHECK(cudaMemcpy(r.input[i], host.data(), host.size(), cudaMemcpyHostToDevice));
    const size_t span = std::max(b.outCount(), b.inCount()) * size;  // in place shares one buffer
    GPU_CHECK(cudaMemset(r.ours[i], 0xA5, span));
    GPU_CHECK(cudaMemset(r.theirs[i], 0xA5, span));
    if (c.inPlace) {
      GPU_CHECK(cudaMemcpy(const_cast<void*>(b.send(i, r.ours[i])), r.input[i], host.size(), cudaMemcpyDeviceToDevice));
      GPU_CHECK(cudaMemcpy(const_cast<void*>(b.send(i, r.theirs[i])), r.input[i], host.size(), cudaMemcpyDeviceToDevice));
    }
    // Device-to-device cudaMemcpy and cudaMemset return before they finish, on the legacy
    // stream, which the collectives' non-blocking streams do not wait for.
    GPU_CHECK(cudaDeviceSynchronize());
  }
}

void runFlashccl(Ranks& r, const Case& c, const Buffers& b) {
  if (!c.graph) {
    NCCL_CHECK(grouped(r, [&](int i) { return callFlashccl(c, i, b.send(i, r.ours[i]), b.recv(i, r.ours[i]), r.comms[i], r.streams[i]); }));
    return;
  }
  // Graph mode as frameworks use it: one thread per rank captures its own stream (a group across
  // devices would join the streams into one capture).
  std::vector<std::string> errors(r.n);
  std::vector<std::thread> threads;
  for (int i = 0; i < r.n; ++i) {
    threads.emplace_back([&, i] {
      cudaSetDevice(i);
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      cudaError_t e = cudaStreamBeginCapture(r.streams[i], cudaStreamCaptureModeThreadLocal);
      const ncclResult_t nr = callFlashccl(c, i, b.send(i, r.ours[i]), b.recv(i, r.ours[i]), r.comms[i], r.streams[i]);
      const cudaError_t end = cudaStreamEndCapture(r.streams[i], &graph);
      if (e == cudaSuccess) e = end;
      if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, graph, 0);
      // Out of place, replay three times: a graph must stay correct on every replay. In place
      // changes its own input, so it is replayed once.
      for (int k = 0; k < (c.inPlace ? 1 : 3) && e == cudaSuccess; ++k) e = cudaGraphLaunch(exec, r.streams[i]);
      if (e == cudaSuccess) e = cudaStreamSynchronize(r.streams[i]);
      if (exec) cudaGraphExecDestroy(exec);
      if (graph) cudaGraphDestroy(graph);
      if (nr != ncclSuccess) errors[i] = std::string("collective: ") + ncclGetErrorString(nr);
      else if (e != cudaSuccess) errors[i] = std::string("graph: ") + cudaGetErrorString(e);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < r.n; ++i) ASSERT_EQ(errors[i], "") << "rank " << i;
}

void runCase(const Case& c) {
  Ranks& r = Ranks::get();
  if (!r.usable()) GTEST_SKIP() << "needs >= 2 GPUs";
  const Buffers b(r, c);
  const size_t size = typeSize(c.dtype);
  prepare(r, c, b, static_cast<uint32_t>(c.count));
  NCCL_CHECK(grouped(r, [&](int i) { return callNccl(r.real, c, i, b.send(i, r.theirs[i]), b.recv(i, r.theirs[i]), r.comms[i], r.streams[i]); }));
  syncAll(r);
  runFlashccl(r, c, b);
  syncAll(r);
  // The path: a case flashccl is meant to run must not have gone to NCCL.
  const bool shouldRun = flashcclShouldRun(c.dtype, c.op, c.coll == Coll::kAllGather);
  for (int i = 0; i < r.n; ++i) {
    const char* ran = flashcclLastAlgorithm(r.comms[i]);
    EXPECT_EQ(std::string(ran ? ran : "?") != "NCCL", shouldRun) << "rank " << i << " ran on " << (ran ? ran : "?");
  }
  const size_t outBytes = b.outCount() * size;
  std::vector<char> first;
  for (int i = 0; i < r.n; ++i) {
    std::vector<char> ours(outBytes), theirs(outBytes);
    cudaSetDevice(i);
    GPU_CHECK(cudaMemcpy(ours.data(), b.recv(i, r.ours[i]), outBytes, cudaMemcpyDeviceToHost));
    GPU_CHECK(cudaMemcpy(theirs.data(), b.recv(i, r.theirs[i]), outBytes, cudaMemcpyDeviceToHost));
    // Bitwise with 2 ranks and for integers; within toleranceFor() above (another adding order).
    ASSERT_EQ(compareWithNccl(ours, theirs, c.dtype, r.n), "") << "rank " << i;
    if (c.coll != Coll::kReduceScatter) {
      if (i == 0) first = ours;
      else ASSERT_EQ(firstDifference(ours, first, size), "") << "rank " << i << " differs from rank 0";
    }
  }
}

using Param = std::tuple<int, int, int, int, bool, bool>;  // coll, dtype, op, size class, in place, graph

size_t countFor(int sizeClass, ncclDataType_t dtype) {
  // 1 element, an odd count, 4 KB, 1 MB, 64 MB (per rank).
  static const size_t bytes[] = {0, 0, 4096, 1u << 20, 64u << 20};
  if (sizeClass == 0) return 1;
  if (sizeClass == 1) return 1001;
  return bytes[sizeClass] / typeSize(dtype);
}

class CollectivesVsNccl : public ::testing::TestWithParam<Param> {};

TEST_P(CollectivesVsNccl, MatchesNccl) {
  const auto [coll, dtype, op, sizeClass, inPlace, graph] = GetParam();
  Case c{static_cast<Coll>(coll), static_cast<ncclDataType_t>(dtype), static_cast<ncclRedOp_t>(op), 0, inPlace, graph};
  c.count = countFor(sizeClass, c.dtype);
  runCase(c);
}

std::string caseName(const ::testing::TestParamInfo<Param>& info) {
  const auto [coll, dtype, op, sizeClass, inPlace, graph] = info.param;
  static const char* sizes[] = {"one", "odd", "4KB", "1MB", "64MB"};
  std::ostringstream name;
  name << collName(static_cast<Coll>(coll)) << "_" << typeName(static_cast<ncclDataType_t>(dtype));
  if (coll != static_cast<int>(Coll::kAllGather)) name << "_" << opName(static_cast<ncclRedOp_t>(op));
  name << "_" << sizes[sizeClass] << (inPlace ? "_inplace" : "_outofplace") << (graph ? "_graph" : "_eager");
  return name.str();
}

INSTANTIATE_TEST_SUITE_P(Reductions, CollectivesVsNccl,
                         ::testing::Combine(::testing::Values(0, 2), ::testing::Range(0, 12),
                                            ::testing::Range(0, 5), ::testing::Range(0, 5),
                                            ::testing::Bool(), ::testing::Bool()),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Gathers, CollectivesVsNccl,
                         ::testing::Combine(::testing::Values(1), ::testing::Range(0, 12),
                                            ::testing::Values(0), ::testing::Range(0, 5),
                                            ::testing::Bool(), ::testing::Bool()),
                         caseName);

// PreMulSum ops made with ncclRedOpCreatePreMulSum, scalar on the host and on the device.
class PreMulSum : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(PreMulSum, MatchesNccl) {
  Ranks& r = Ranks::get();
  if (!r.usable()) GTEST_SKIP() << "needs >= 2 GPUs";
  const auto [dtype, onDevice] = GetParam();
  const ncclDataType_t t = static_cast<ncclDataType_t>(dtype);
  std::vector<char> scalar = makeInput(t, 1, 99, 5);
  std::vector<ncclRedOp_t> ops(r.n);
  std::vector<void*> deviceScalars(r.n, nullptr);
  for (int i = 0; i < r.n; ++i) {
    cudaSetDevice(i);
    void* s = scalar.data();
    if (onDevice) {
      GPU_CHECK(cudaMalloc(&deviceScalars[i], scalar.size()));
      GPU_CHECK(cudaMemcpy(deviceScalars[i], scalar.data(), scalar.size(), cudaMemcpyHostToDevice));
      s = deviceScalars[i];
    }
    NCCL_CHECK(ncclRedOpCreatePreMulSum(&ops[i], s, t, onDevice ? ncclScalarDevice : ncclScalarHostImmediate, r.comms[i]));
  }
  for (size_t count : {size_t(1001), size_t(1u << 18)}) {
    Case c{Coll::kAllReduce, t, ops[0], count, false, false, ops.data()};
    runCase(c);
  }
  for (int i = 0; i < r.n; ++i) {
    NCCL_CHECK(ncclRedOpDestroy(ops[i], r.comms[i]));
    if (deviceScalars[i]) cudaFree(deviceScalars[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, PreMulSum,
                         ::testing::Combine(::testing::Values(int(ncclFloat16), int(ncclFloat32), int(ncclFloat64), int(ncclBfloat16), int(ncclInt32)),
                                            ::testing::Bool()));

}  // namespace
}  // namespace flashccl_gpu_test
