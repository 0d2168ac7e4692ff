#include "rank_driver.h"

#include <flashccl/flashccl.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <thread>

#include "compare.h"
#include "gpu_errors.h"
#include "progress_watchdog.h"
#include "run_environment.h"
#include "size_list.h"

namespace flashccl {
namespace perf {

// perf_types.h mirrors NCCL's enums so a cast maps them; keep it that way.
static_assert(static_cast<int>(DataType::kInt8) == ncclInt8, "DataType mirrors ncclDataType_t");
static_assert(static_cast<int>(DataType::kFloat) == ncclFloat32, "DataType mirrors ncclDataType_t");
static_assert(static_cast<int>(DataType::kBfloat16) == ncclBfloat16,
              "DataType mirrors ncclDataType_t");
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
static_assert(static_cast<int>(DataType::kFloat8e5m2) == ncclFloat8e5m2,
              "DataType mirrors ncclDataType_t");
#endif
static_assert(static_cast<int>(ReduceOp::kSum) == ncclSum && static_cast<int>(ReduceOp::kProd) == ncclProd &&
                  static_cast<int>(ReduceOp::kMax) == ncclMax && static_cast<int>(ReduceOp::kMin) == ncclMin &&
                  static_cast<int>(ReduceOp::kAvg) == ncclAvg,
              "ReduceOp mirrors ncclRedOp_t");

namespace {

// Largest block one rank contributes to an exchange: 2 x --pairs (<= 1000) doubles of block times,
// or one packed device description.
constexpr size_t kExchangeBytes = 16384;

struct PackedDevice {
  int32_t rank;
  int32_t device;
  int32_t pid;
  char host[64];
  char busId[32];
  char name[96];
};

struct PackedCheck {
  uint64_t mismatches;
  uint64_t hash;
};

void copyString(char* out, size_t size, const std::string& text) {
  std::snprintf(out, size, "%s", text.c_str());
}

// What flashcclLastAlgorithm says ran, or why it cannot say: pass-through runs (FLASHCCL_DISABLE=1)
// may leave flashccl without state for the communicator.
std::string algorithmName(ncclComm_t comm) {
  const char* name = flashcclLastAlgorithm(comm);
  if (name && *name) return name;
  const char* reason = nullptr;
  switch (flashcclCommState(comm, &reason)) {
    case -1: return "NCCL (flashccl disabled)";
    case -2: return "? (communicator unknown to flashccl)";
    default: return "?";
  }
}

template <typename T>
std::vector<uint8_t> toBytes(const T* values, size_t count) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(values);
  return std::vector<uint8_t>(p, p + sizeof(T) * count);
}

template <typename T>
std::vector<T> fromBytes(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

}  // namespace

RankDriver::RankDriver(const PerfOptions& options, const RankLayout& layout,
                       std::vector<LocalRank> ranks, const CollectiveApi& nccl,
                       const CollectiveApi& flashccl, ReportSink* sink)
    : options_(options), layout_(layout), nranks_(layout.nranks()), sink_(sink) {
  apis_[kNcclSide] = nccl;
  apis_[kFlashcclSide] = flashccl;
  for (const LocalRank& rank : ranks) {
    RankState state;
    state.id = rank;
    ranks_.push_back(state);
    holdsRankZero_ = holdsRankZero_ || rank.rank == 0;
  }
  cases_ = buildMeasureCases(options_);
}

RankDriver::~RankDriver() = default;

std::string RankDriver::where(const RankState& state) const {
  return "rank " + std::to_string(state.id.rank) + " (GPU " + std::to_string(state.id.device) + ")";
}

void RankDriver::progress(const std::string& what) {
  for (const RankState& state : ranks_) reportProgress(state.id.rank, what);
}

void RankDriver::useDevice(const RankState& state) const {
  PERF_CUDA_CHECK(cudaSetDevice(state.id.device), "selecting the GPU of " + where(state));
}

std::string RankDriver::describe(const MeasureCase& c) const {
  std::string text = std::string(collectiveName(c.collective)) + " " + std::to_string(c.bytes) +
                     " B " + dataTypeName(c.dataType);
  if (c.op != ReduceOp::kNone) text += std::string(" ") + reduceOpName(c.op);
  text += c.placement == Placement::kInPlace ? " in-place" : " out-of-place";
  return text;
}

void RankDriver::setUp() {
  bufferBytes_ = bufferBytesNeeded(cases_);
  if (bufferBytes_ < 256) bufferBytes_ = 256;
  for (RankState& state : ranks_) {
    useDevice(state);
    const std::string at = " on " + where(state);
    PERF_CUDA_CHECK(cudaStreamCreateWithFlags(&state.stream, cudaStreamNonBlocking),
                    "creating a stream" + at);
    PERF_CUDA_CHECK(cudaEventCreate(&state.start), "creating a CUDA event" + at);
    PERF_CUDA_CHECK(cudaEventCreate(&state.stop), "creating a CUDA event" + at);
    auto allocate = [&](void** pointer, size_t bytes, const char* what) {
      const cudaError_t err = cudaMalloc(pointer, bytes);
      if (err == cudaErrorMemoryAllocation)
        throw PerfFailure("allocating the " + formatBytes(bytes) + " " + what + at +
                          " failed: out of GPU memory (each rank holds 3 buffers of the largest "
                          "size, -e); lower -e");
      PERF_CUDA_CHECK(err, "allocating the " + formatBytes(bytes) + " " + what + at);
    };
    allocate(&state.send, bufferBytes_, "send buffer");
    allocate(&state.recv, bufferBytes_, "receive buffer");
    allocate(&state.reference, bufferBytes_, "reference buffer");
    allocate(reinterpret_cast<void**>(&state.checkResult), sizeof(DeviceCheckResult),
             "check result");
    allocate(reinterpret_cast<void**>(&state.exchangeSend), kExchangeBytes, "exchange buffer");
    allocate(reinterpret_cast<void**>(&state.exchangeRecv),
             kExchangeBytes * static_cast<size_t>(nranks_), "exchange buffer");
    allocate(reinterpret_cast<void**>(&state.barrier), sizeof(float), "barrier word");
    PERF_CUDA_CHECK(cudaMemsetAsync(state.barrier, 0, sizeof(float), state.stream),
                    "clearing the barrier word" + at);
  }
}

void RankDriver::tearDown() {
  destroyGraphs();
  for (RankState& state : ranks_) {
    useDevice(state);
    const std::string at = "releasing the buffers of " + where(state);
    PERF_CUDA_CHECK(cudaStreamSynchronize(state.stream), at);
    for (void* p : {state.send, state.recv, state.reference, static_cast<void*>(state.checkResult),
                    static_cast<void*>(state.exchangeSend), static_cast<void*>(state.exchangeRecv),
                    static_cast<void*>(state.barrier)})
      PERF_CUDA_CHECK(cudaFree(p), at);
    PERF_CUDA_CHECK(cudaEventDestroy(state.start), at);
    PERF_CUDA_CHECK(cudaEventDestroy(state.stop), at);
    PERF_CUDA_CHECK(cudaStreamDestroy(state.stream), at);
    state = RankState{state.id};
  }
}

void* RankDriver::regionPointer(RankState& state, const Region& region) const {
  unsigned char* base =
      static_cast<unsigned char*>(region.buffer == BufferId::kSend ? state.send : state.recv);
  return base + region.offsetBytes;
}

void RankDriver::issue(const CollectiveApi& api, const MeasureCase& c, RankState& state,
                       const CaseLayout& layout) {
  const void* send = regionPointer(state, layout.input);
  void* recv = regionPointer(state, Region{layout.output.buffer, layout.recvPointerOffset, 0});
  const ncclDataType_t type = static_cast<ncclDataType_t>(c.dataType);
  const ncclRedOp_t op = static_cast<ncclRedOp_t>(c.op);
  const size_t count = layout.counts.callCount;
  ncclComm_t comm = state.id.comm;
  const char* capturing = capturing_ ? " (while capturing a CUDA graph)" : "";
  switch (c.collective) {
    case Collective::kAllReduce:
      PERF_NCCL_CHECK(api.allReduce(send, recv, count, type, op, comm, state.stream), comm,
                      std::string(api.label) + " " + describe(c) + " on " + where(state) + capturing);
      break;
    case Collective::kAllGather:
      PERF_NCCL_CHECK(api.allGather(send, recv, count, type, comm, state.stream), comm,
                      std::string(api.label) + " " + describe(c) + " on " + where(state) + capturing);
      break;
    case Collective::kReduceScatter:
      PERF_NCCL_CHECK(api.reduceScatter(send, recv, count, type, op, comm, state.stream), comm,
                      std::string(api.label) + " " + describe(c) + " on " + where(state) + capturing);
      break;
  }
}

void RankDriver::launch(Side side, const MeasureCase& c, int operations) {
  const CollectiveApi& api = apis_[side];
  // Several local ranks, or -m operations per iteration: one group, as nccl-tests issues them.
  const bool grouped = ranks_.size() > 1 || operations > 1;
  if (grouped)
    PERF_NCCL_CHECK(api.groupStart(), nullptr, std::string(api.label) + " ncclGroupStart");
  for (int k = 0; k < operations; ++k)
    for (size_t l = 0; l < ranks_.size(); ++l) issue(api, c, ranks_[l], layouts_[l]);
  if (grouped)
    PERF_NCCL_CHECK(api.groupEnd(), nullptr,
                    std::string(api.label) + " ncclGroupEnd after " + describe(c));
}

void RankDriver::iterate(Side side, const MeasureCase& c) {
  launch(side, c, options_.aggIters);
  // -z 1: nothing is queued behind an unfinished operation (capture has nothing to wait for).
  if (options_.blocking && !capturing_) waitForAll(std::string(apis_[side].label) + "'s " + describe(c));
}

void RankDriver::prepareInputs(const MeasureCase& c, bool poison) {
  for (size_t l = 0; l < ranks_.size(); ++l) {
    RankState& state = ranks_[l];
    const CaseLayout& layout = layouts_[l];
    useDevice(state);
    const std::string at = " for " + describe(c) + " on " + where(state);
    PERF_CUDA_CHECK(launchFillInput(regionPointer(state, layout.input), layout.counts.sendElements,
                                    c.dataType, c.op, options_.seed, state.id.rank, state.stream),
                    "filling the inputs" + at);
    if (!poison) continue;
    for (const Region& region : layout.poison)
      PERF_CUDA_CHECK(cudaMemsetAsync(regionPointer(state, region), 0xFF, region.bytes, state.stream),
                      "poisoning the output" + at);
  }
}

void RankDriver::waitForStream(const RankState& state, const std::string& what) const {
  // Poll rather than block, so an asynchronous NCCL error (a peer gone, a network failure) surfaces
  // as an error instead of a hang; the watchdog covers a kernel that simply never finishes.
  for (unsigned spins = 0;; ++spins) {
    const cudaError_t err = cudaStreamQuery(state.stream);
    if (err == cudaSuccess) return;
    if (err != cudaErrorNotReady)
      throwCudaFailure(err, "cudaStreamQuery", what + " on " + where(state), __FILE__, __LINE__);
    ncclResult_t asyncError = ncclSuccess;
    const ncclResult_t res = ncclCommGetAsyncError(state.id.comm, &asyncError);
    if (res != ncclSuccess)
      throwNcclFailure(res, "ncclCommGetAsyncError", state.id.comm, what + " on " + where(state),
                       __FILE__, __LINE__);
    if (asyncError != ncclSuccess && asyncError != ncclInProgress)
      throwNcclFailure(asyncError, "(asynchronous error)", state.id.comm,
                       what + " on " + where(state), __FILE__, __LINE__);
    if (spins < 2000) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void RankDriver::waitForAll(const std::string& what) {
  for (const RankState& state : ranks_) waitForStream(state, what);
}

void RankDriver::deviceBarrier() {
  // A one-element AllReduce through the real NCCL: no rank's stream moves past it until every rank
  // has reached it, so the timed operations after it start together on all GPUs.
  const CollectiveApi& nccl = apis_[kNcclSide];
  const bool grouped = ranks_.size() > 1;
  if (grouped) PERF_NCCL_CHECK(nccl.groupStart(), nullptr, "NCCL ncclGroupStart (barrier)");
  for (RankState& state : ranks_)
    PERF_NCCL_CHECK(nccl.allReduce(state.barrier, state.barrier, 1, ncclFloat32, ncclSum,
                                   state.id.comm, state.stream),
                    state.id.comm, "the barrier before a timed block on " + where(state));
  if (grouped) PERF_NCCL_CHECK(nccl.groupEnd(), nullptr, "NCCL ncclGroupEnd (barrier)");
}

std::vector<std::vector<uint8_t>> RankDriver::exchange(
    const std::vector<std::vector<uint8_t>>& perRank) {
  const size_t bytes = perRank.front().size();
  for (const std::vector<uint8_t>& block : perRank)
    if (block.size() != bytes || bytes > kExchangeBytes || bytes == 0)
      throw PerfFailure("internal error: exchange blocks of " + std::to_string(block.size()) +
                        " B (limit " + std::to_string(kExchangeBytes) + " B)");
  const CollectiveApi& nccl = apis_[kNcclSide];
  for (size_t l = 0; l < ranks_.size(); ++l) {
    RankState& state = ranks_[l];
    useDevice(state);
    PERF_CUDA_CHECK(cudaMemcpyAsync(state.exchangeSend, perRank[l].data(), bytes,
                                    cudaMemcpyHostToDevice, state.stream),
                    "copying results to exchange on " + where(state));
  }
  const bool grouped = ranks_.size() > 1;
  if (grouped) PERF_NCCL_CHECK(nccl.groupStart(), nullptr, "NCCL ncclGroupStart (exchange)");
  for (RankState& state : ranks_)
    PERF_NCCL_CHECK(nccl.allGather(state.exchangeSend, state.exchangeRecv, bytes, ncclUint8,
                                   state.id.comm, state.stream),
                    state.id.comm, "exchanging results between ranks on " + where(state));
  if (grouped) PERF_NCCL_CHECK(nccl.groupEnd(), nullptr, "NCCL ncclGroupEnd (exchange)");
  waitForAll("exchanging results between ranks");
  std::vector<uint8_t> all(bytes * static_cast<size_t>(nranks_));
  RankState& first = ranks_.front();
  useDevice(first);
  PERF_CUDA_CHECK(cudaMemcpyAsync(all.data(), first.exchangeRecv, all.size(),
                                  cudaMemcpyDeviceToHost, first.stream),
                  "reading exchanged results on " + where(first));
  waitForStream(first, "reading exchanged results");
  std::vector<std::vector<uint8_t>> blocks;
  for (int r = 0; r < nranks_; ++r)
    blocks.emplace_back(all.begin() + static_cast<long>(r * bytes),
                        all.begin() + static_cast<long>((r + 1) * bytes));
  return blocks;
}

std::vector<DeviceInfo> RankDriver::gatherDevices() {
  progress("describing the GPUs");
  std::vector<std::vector<uint8_t>> mine;
  for (const RankState& state : ranks_) {
    const DeviceInfo info = describeDevice(state.id.rank, state.id.device);
    PackedDevice packed;
    std::memset(&packed, 0, sizeof(packed));
    packed.rank = info.rank;
    packed.device = info.device;
    packed.pid = info.pid;
    copyString(packed.host, sizeof(packed.host), info.host);
    copyString(packed.busId, sizeof(packed.busId), info.busId);
    copyString(packed.name, sizeof(packed.name), info.name);
    mine.push_back(toBytes(&packed, 1));
  }
  std::vector<DeviceInfo> devices;
  for (const std::vector<uint8_t>& block : exchange(mine)) {
    const PackedDevice packed = fromBytes<PackedDevice>(block).front();
    DeviceInfo info;
    info.rank = packed.rank;
    info.device = packed.device;
    info.pid = packed.pid;
    info.host = packed.host;
    info.busId = packed.busId;
    info.name = packed.name;
    devices.push_back(info);
  }
  return devices;
}

uint64_t RankDriver::compareWithReference(const MeasureCase& c, const ComparePolicy& policy,
                                          const std::string& how) {
  const size_t elementBytes = dataTypeSize(c.dataType);
  for (size_t l = 0; l < ranks_.size(); ++l) {
    RankState& state = ranks_[l];
    const CaseLayout& layout = layouts_[l];
    useDevice(state);
    PERF_CUDA_CHECK(launchCompareAndHash(state.reference, regionPointer(state, layout.output),
                                         layout.output.bytes / elementBytes, c.dataType, policy,
                                         state.checkResult, state.stream),
                    "comparing flashccl's " + describe(c) + " with NCCL's on " + where(state));
  }
  waitForAll("comparing flashccl's " + describe(c) + " with NCCL's");
  std::vector<std::vector<uint8_t>> mine;
  for (size_t l = 0; l < ranks_.size(); ++l) {
    RankState& state = ranks_[l];
    const CaseLayout& layout = layouts_[l];
    useDevice(state);
    DeviceCheckResult result;
    PERF_CUDA_CHECK(cudaMemcpyAsync(&result, state.checkResult, sizeof(result),
                                    cudaMemcpyDeviceToHost, state.stream),
                    "reading the check result on " + where(state));
    waitForStream(state, "reading the check result");
    if (result.mismatches) {
      // Name the first wrong element with both values, so a failure is actionable from the log.
      uint64_t expected = 0, actual = 0;
      const size_t offset = result.firstIndex * elementBytes;
      PERF_CUDA_CHECK(cudaMemcpyAsync(&expected, static_cast<unsigned char*>(state.reference) + offset,
                                      elementBytes, cudaMemcpyDeviceToHost, state.stream),
                      "reading a wrong element on " + where(state));
      PERF_CUDA_CHECK(
          cudaMemcpyAsync(&actual,
                          static_cast<unsigned char*>(regionPointer(state, layout.output)) + offset,
                          elementBytes, cudaMemcpyDeviceToHost, state.stream),
          "reading a wrong element on " + where(state));
      waitForStream(state, "reading a wrong element");
      std::fprintf(stderr,
                   "flashccl perf: WRONG: %s, %s, %s: %llu of %zu elements differ from NCCL's "
                   "result (%s); first at %s\n",
                   where(state).c_str(), describe(c).c_str(), how.c_str(), result.mismatches,
                   layout.output.bytes / elementBytes, describePolicy(policy).c_str(),
                   describeMismatch(c.dataType, result.firstIndex, expected, actual).c_str());
      std::fflush(stderr);
    }
    PackedCheck packed{result.mismatches, result.hash};
    mine.push_back(toBytes(&packed, 1));
  }
  uint64_t wrong = 0;
  std::vector<uint64_t> hashes;
  for (const std::vector<uint8_t>& block : exchange(mine)) {
    const PackedCheck packed = fromBytes<PackedCheck>(block).front();
    wrong += packed.mismatches;
    hashes.push_back(packed.hash);
  }
  // AllReduce and AllGather leave the same array on every rank (docs/design.md, "Deterministic order": bitwise identical).
  if (c.collective != Collective::kReduceScatter) {
    const std::vector<int> differing = ranksDifferingFromFirst(hashes);
    wrong += differing.size();
    if (!differing.empty() && holdsRankZero_) {
      std::string list;
      for (int r : differing) list += (list.empty() ? "" : ", ") + std::to_string(r);
      std::fprintf(stderr,
                   "flashccl perf: WRONG: %s, %s: rank(s) %s hold a different result from rank 0 "
                   "(every rank must hold the same array, bit for bit); counted in #wrong\n",
                   describe(c).c_str(), how.c_str(), list.c_str());
      std::fflush(stderr);
    }
  }
  return wrong;
}

uint64_t RankDriver::checkCase(const MeasureCase& c, const ComparePolicy& policy) {
  progress(describe(c) + ": check, NCCL's call");
  prepareInputs(c, true);
  launch(kNcclSide, c, 1);
  for (size_t l = 0; l < ranks_.size(); ++l) {
    RankState& state = ranks_[l];
    useDevice(state);
    PERF_CUDA_CHECK(cudaMemcpyAsync(state.reference, regionPointer(state, layouts_[l].output),
                                    layouts_[l].output.bytes, cudaMemcpyDeviceToDevice,
                                    state.stream),
                    "keeping NCCL's output on " + where(state));
  }
  waitForAll("NCCL's checked " + describe(c));
  progress(describe(c) + ": check, flashccl's call");
  prepareInputs(c, true);
  launch(kFlashcclSide, c, 1);
  waitForAll("flashccl's checked " + describe(c));
  return compareWithReference(c, policy, "eager");
}

uint64_t RankDriver::checkGraphReplay(const MeasureCase& c, const ComparePolicy& policy) {
  progress(describe(c) + ": check, flashccl's CUDA graph replay");
  auto replay = [&](bool timingGraph) {
    for (RankState& state : ranks_) {
      useDevice(state);
      PERF_CUDA_CHECK(cudaGraphLaunch(timingGraph ? state.timingGraph[kFlashcclSide]
                                                  : state.checkGraph,
                                      state.stream),
                      "replaying flashccl's CUDA graph of " + describe(c) + " on " + where(state));
    }
  };
  if (c.placement == Placement::kOutOfPlace) {
    // Out of place, N operations leave the same output as one: replay the timed graph twice, which
    // also exercises state carried from one replay to the next (docs/design.md, "Graph-safe device state").
    prepareInputs(c, true);
    replay(true);
    replay(true);
  } else {
    // In place, each operation feeds the next; replay a one-operation graph on fresh inputs, twice.
    prepareInputs(c, true);
    replay(false);
    prepareInputs(c, true);
    replay(false);
  }
  waitForAll("flashccl's CUDA graph replay of " + describe(c));
  return compareWithReference(c, policy, "CUDA graph replay");
}

void RankDriver::captureGraphs(const MeasureCase& c) {
  // `iterations` of -m operations each; 0 for a graph of one operation.
  auto capture = [&](Side side, int iterations, bool intoCheckGraph) {
    progress(describe(c) + ": capturing " + apis_[side].label + "'s CUDA graph");
    for (RankState& state : ranks_) {
      useDevice(state);
      PERF_CUDA_CHECK(cudaStreamBeginCapture(state.stream, cudaStreamCaptureModeThreadLocal),
                      "starting a CUDA graph capture on " + where(state));
    }
    capturing_ = true;
    if (iterations == 0) launch(side, c, 1);  // the one-operation check graph
    for (int k = 0; k < iterations; ++k) iterate(side, c);
    capturing_ = false;
    for (RankState& state : ranks_) {
      useDevice(state);
      const std::string what =
          std::string(apis_[side].label) + "'s CUDA graph of " + describe(c) + " on " + where(state);
      cudaGraph_t graph = nullptr;
      PERF_CUDA_CHECK(cudaStreamEndCapture(state.stream, &graph), "capturing " + what);
      cudaGraphExec_t* exec = intoCheckGraph ? &state.checkGraph : &state.timingGraph[side];
      PERF_CUDA_CHECK(cudaGraphInstantiate(exec, graph, 0), "instantiating " + what);
      PERF_CUDA_CHECK(cudaGraphDestroy(graph), "releasing " + what);
    }
  };
  capture(kNcclSide, options_.iters, false);
  capture(kFlashcclSide, options_.iters, false);
  if (options_.check && c.placement == Placement::kInPlace) capture(kFlashcclSide, 0, true);
}

void RankDriver::destroyGraphs() {
  for (RankState& state : ranks_) {
    for (cudaGraphExec_t* exec : {&state.timingGraph[0], &state.timingGraph[1], &state.checkGraph}) {
      if (!*exec) continue;
      useDevice(state);
      PERF_CUDA_CHECK(cudaGraphExecDestroy(*exec), "releasing a CUDA graph on " + where(state));
      *exec = nullptr;
    }
  }
}

std::vector<double> RankDriver::timeBlock(Side side, const MeasureCase& c) {
  const CollectiveApi& api = apis_[side];
  progress(describe(c) + ": timing a block of " + api.label);
  const bool graph = options_.graphReplays > 0;
  for (int i = 0; i < options_.warmupIters; ++i) iterate(side, c);
  deviceBarrier();
  // The host clock (-C 1) starts once the barrier is through, so it counts only the timed work.
  if (options_.cpuTime) waitForAll("the barrier before " + std::string(api.label) + "'s timed block");
  const auto hostStart = std::chrono::steady_clock::now();
  for (RankState& state : ranks_) {
    useDevice(state);
    PERF_CUDA_CHECK(cudaEventRecord(state.start, state.stream), "recording an event on " + where(state));
  }
  if (graph) {
    for (int r = 0; r < options_.graphReplays; ++r) {
      for (RankState& state : ranks_) {
        useDevice(state);
        PERF_CUDA_CHECK(cudaGraphLaunch(state.timingGraph[side], state.stream),
                        std::string("replaying ") + api.label + "'s CUDA graph of " + describe(c) + " on " +
                            where(state));
      }
    }
  } else {
    for (int i = 0; i < options_.iters; ++i) iterate(side, c);
  }
  for (RankState& state : ranks_) {
    useDevice(state);
    PERF_CUDA_CHECK(cudaEventRecord(state.stop, state.stream), "recording an event on " + where(state));
  }
  waitForAll(std::string(api.label) + "'s timed block of " + describe(c));
  const double hostMicros =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - hostStart).count();
  const double operations = static_cast<double>(options_.iters) * options_.aggIters *
                            (graph ? static_cast<double>(options_.graphReplays) : 1.0);
  std::vector<double> micros;
  for (RankState& state : ranks_) {
    float milliseconds = 0.0f;
    useDevice(state);
    PERF_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, state.start, state.stop),
                    "reading the block time on " + where(state));
    const double blockMicros = options_.cpuTime ? hostMicros : static_cast<double>(milliseconds) * 1000.0;
    micros.push_back(blockMicros / operations);
  }
  return micros;
}

SizeResult RankDriver::measure(const MeasureCase& c, int cycle) {
  layouts_.clear();
  for (const RankState& state : ranks_) layouts_.push_back(caseLayout(c, state.id.rank, nranks_));
  const ComparePolicy policy = comparePolicy(c.collective, c.dataType, c.op, nranks_);

  SizeResult result;
  result.collective = c.collective;
  result.bytes = c.bytes;
  result.count = layouts_.front().counts.totalElements;
  result.dataType = c.dataType;
  result.op = c.op;
  result.placement = c.placement;
  result.cycle = cycle;
  if (options_.check) {
    result.checked = true;
    result.checkRule = describePolicy(policy);
    // -c N, as in nccl-tests: N checked calls per case; #wrong adds up their mismatches.
    for (int i = 0; i < options_.checkIters; ++i) result.wrong += checkCase(c, policy);
  }
  if (options_.graphReplays > 0) {
    captureGraphs(c);
    if (options_.check) result.wrong += checkGraphReplay(c, policy);
  }

  prepareInputs(c, false);
  // samples[l][2 * pair + side]: per-operation time of each block on each local rank.
  std::vector<std::vector<double>> samples(ranks_.size(),
                                           std::vector<double>(2 * options_.pairs, 0.0));
  for (int pair = 0; pair < options_.pairs; ++pair) {
    // Alternate which library goes first, so neither always inherits the other's warm caches.
    const Side first = pair % 2 == 0 ? kNcclSide : kFlashcclSide;
    const Side second = first == kNcclSide ? kFlashcclSide : kNcclSide;
    for (Side side : {first, second}) {
      const std::vector<double> micros = timeBlock(side, c);
      for (size_t l = 0; l < ranks_.size(); ++l) samples[l][2 * pair + side] = micros[l];
    }
  }
  std::vector<std::vector<uint8_t>> mine;
  for (const std::vector<double>& s : samples) mine.push_back(toBytes(s.data(), s.size()));
  std::vector<std::vector<double>> perRank;
  for (const std::vector<uint8_t>& block : exchange(mine)) perRank.push_back(fromBytes<double>(block));
  const std::vector<double> combined = combineRanks(perRank, static_cast<int>(options_.average));
  for (int pair = 0; pair < options_.pairs; ++pair) {
    result.ncclSamples.push_back(combined[2 * pair + kNcclSide]);
    result.flashcclSamples.push_back(combined[2 * pair + kFlashcclSide]);
  }
  result.timing = summarizePairs(result.ncclSamples, result.flashcclSamples);

  if (holdsRankZero_) {
    for (const RankState& state : ranks_) {
      if (state.id.rank != 0) continue;
      result.algorithm = algorithmName(state.id.comm);
    }
  }
  destroyGraphs();
  return result;
}

void RankDriver::run() {
  progress("setting up buffers");
  setUp();
  const std::vector<DeviceInfo> devices = gatherDevices();
  report_.info = makeRunInfo(options_, layout_, devices);
  if (sink_) sink_->begin(report_.info);
  // -N 0 runs until interrupted, as nccl-tests' does; the records hold every cycle so far.
  for (int cycle = 0; options_.cycles == 0 || cycle < options_.cycles; ++cycle) {
    for (const MeasureCase& c : cases_) {
      const SizeResult result = measure(c, cycle);
      report_.results.push_back(result);
      if (sink_) sink_->add(result);
    }
  }
  progress("releasing buffers");
  tearDown();
  if (sink_) sink_->finish(report_);
  for (const RankState& state : ranks_) finishProgress(state.id.rank);
}

}  // namespace perf
}  // namespace flashccl
