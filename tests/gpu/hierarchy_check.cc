// flashccl_hierarchy_check: one rank of issue 16's check across nodes, on ONE GPU. The launcher
// (hierarchy_check.sh) starts every rank as a process of its own, each with its own NCCL_HOSTID
// (NCCL then takes them for separate hosts and joins them through its socket transport) and a
// FLASHCCL_NODE_ID that says which of them form a node (flashccl then joins those through CUDA IPC
// on the one GPU, and runs its algorithms across nodes between the others). The GPU time-slices
// the processes, so timings mean nothing; results do.
//
// Every case runs the call through flashccl (the nccl* functions of libflashccl.so) and through
// the real NCCL (flashcclRealFunction) on the same communicator with the same inputs, then checks
// on every rank: the algorithm flashccl ran is the one its selection must pick
// (hierarchy_cases.h), the output matches NCCL's (bitwise where the order of operations cannot
// matter, else within the rounding two orders can differ by), and every rank of an AllReduce or
// AllGather holds the same bits. Rank 0 prints one PASS/FAIL line per case and, with --markdown,
// the scenario's record.
//
//   flashccl_hierarchy_check --rank R --nranks N --nodes M --id-file PATH --scenario NAME
//       [--interleaved] [--expect-disabled TEXT] [--pipelined-allreduce] [--colls LIST]
//       [--matrix quick|standard|full] [--disagreement] [--markdown PATH]
//
// --disagreement: instead of the cases, the ranks of node 0 and of node 1 call different
// collectives that NCCL itself would pair (the same bytes between nodes), on fresh communicators;
// every rank must see ncclInvalidUsage as the communicator's asynchronous error, never success.
// Exit status: 0 all passed, 1 a failure, 2 bad usage or no GPU/NCCL.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include "flashccl/flashccl.h"
#include "hierarchy_cases.h"
#include "hierarchy_id_file.h"
#include "hierarchy_record.h"
#include "test_inputs.h"

namespace flashccl_gpu_test::hierarchy {
namespace {

struct Options {
  int rank = -1;
  int nranks = 0;
  int nodes = 0;
  std::string idFile;
  std::string scenario;
  bool interleaved = false;
  std::string expectDisabled;  // a disabled set-up is expected, with this in its reason
  bool pipelinedAllReduce = false;
  std::vector<Coll> colls = {Coll::kAllReduce, Coll::kAllGather, Coll::kReduceScatter};
  Matrix matrix = Matrix::kStandard;
  bool disagreement = false;
  std::string markdown;
};

bool parseColls(const std::string& text, std::vector<Coll>* colls) {
  colls->clear();
  std::istringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    if (item == "allreduce") colls->push_back(Coll::kAllReduce);
    else if (item == "allgather") colls->push_back(Coll::kAllGather);
    else if (item == "reducescatter") colls->push_back(Coll::kReduceScatter);
    else return false;
  }
  return !colls->empty();
}

bool parseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--rank") o->rank = std::atoi(value().c_str());
    else if (arg == "--nranks") o->nranks = std::atoi(value().c_str());
    else if (arg == "--nodes") o->nodes = std::atoi(value().c_str());
    else if (arg == "--id-file") o->idFile = value();
    else if (arg == "--scenario") o->scenario = value();
    else if (arg == "--interleaved") o->interleaved = true;
    else if (arg == "--expect-disabled") o->expectDisabled = value();
    else if (arg == "--pipelined-allreduce") o->pipelinedAllReduce = true;
    else if (arg == "--disagreement") o->disagreement = true;
    else if (arg == "--markdown") o->markdown = value();
    else if (arg == "--colls") {
      if (!parseColls(value(), &o->colls)) return false;
    } else if (arg == "--matrix") {
      const std::string m = value();
      if (m == "quick") o->matrix = Matrix::kQuick;
      else if (m == "standard") o->matrix = Matrix::kStandard;
      else if (m == "full") o->matrix = Matrix::kFull;
      else return false;
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", arg.c_str());
      return false;
    }
  }
  return o->rank >= 0 && o->nranks > o->rank && o->nodes > 0 && !o->idFile.empty() && !o->scenario.empty();
}

using AllReduceFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
using AllGatherFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);

// The real NCCL, bypassing flashccl: the reference results and the check's own bookkeeping.
struct RealNccl {
  AllReduceFn allReduce = nullptr;
  AllGatherFn allGather = nullptr;
  AllReduceFn reduceScatter = nullptr;  // same parameter list as AllReduce
  bool load() {
    allReduce = reinterpret_cast<AllReduceFn>(flashcclRealFunction("ncclAllReduce"));
    allGather = reinterpret_cast<AllGatherFn>(flashcclRealFunction("ncclAllGather"));
    reduceScatter = reinterpret_cast<AllReduceFn>(flashcclRealFunction("ncclReduceScatter"));
    return allReduce && allGather && reduceScatter;
  }
};

#define CHECK_CUDA(call)                                                                              \
  do {                                                                                                \
    const cudaError_t e_ = (call);                                                                    \
    if (e_ != cudaSuccess) return std::string(#call) + ": " + cudaGetErrorString(e_);                 \
  } while (0)
#define CHECK_NCCL(call)                                                                              \
  do {                                                                                                \
    const ncclResult_t r_ = (call);                                                                   \
    if (r_ != ncclSuccess) return std::string(#call) + ": " + ncclGetErrorString(r_);                 \
  } while (0)

struct Rank {
  Options options;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  RealNccl real;
  uint64_t* words = nullptr;    // device: nranks words for the check's own gathers
};

// Every rank's `mine`, through the real NCCL on the world communicator.
std::string gatherWords(Rank& r, uint64_t mine, std::vector<uint64_t>* all) {
  all->assign(r.options.nranks, 0);
  CHECK_CUDA(cudaMemcpy(r.words + r.options.rank, &mine, sizeof(mine), cudaMemcpyHostToDevice));
  CHECK_NCCL(r.real.allGather(r.words + r.options.rank, r.words, 1, ncclUint64, r.comm, r.stream));
  CHECK_CUDA(cudaStreamSynchronize(r.stream));
  CHECK_CUDA(cudaMemcpy(all->data(), r.words, all->size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  return "";
}

uint64_t hashBytes(const std::vector<char>& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// Inputs of every rank for one (collective, type, count): every rank needs all of them to bound
// the rounding, and the cases of one (collective, type, count) run one after another.
struct InputCache {
  Coll coll = Coll::kAllReduce;
  ncclDataType_t dtype = ncclInt8;
  size_t count = 0;
  std::vector<std::vector<char>> ranks;
  const std::vector<std::vector<char>>& get(const Case& c, size_t inCount, int nranks) {
    if (ranks.empty() || coll != c.coll || dtype != c.dtype || count != c.count) {
      ranks.clear();
      for (int r = 0; r < nranks; ++r) ranks.push_back(makeInput(c.dtype, inCount, r, static_cast<uint32_t>(c.count)));
      coll = c.coll;
      dtype = c.dtype;
      count = c.count;
    }
    return ranks;
  }
};

// Rank r's PreMulSum scalar: small, exact in every type, and different on every rank.
std::vector<char> scalarOf(ncclDataType_t dtype, int rank) { return makeInput(dtype, 1, 100 + rank, 7); }

class CaseBuffers {
 public:
  ~CaseBuffers() {
    for (void* p : {static_cast<void*>(input_), static_cast<void*>(ours_), static_cast<void*>(theirs_), scalar_}) {
      if (p) cudaFree(p);
    }
  }
  std::string allocate(size_t inBytes, size_t outBytes) {
    inBytes_ = inBytes;
    span_ = std::max(inBytes, outBytes);
    CHECK_CUDA(cudaMalloc(&input_, inBytes));
    CHECK_CUDA(cudaMalloc(&ours_, span_));
    CHECK_CUDA(cudaMalloc(&theirs_, span_));
    CHECK_CUDA(cudaMalloc(&scalar_, 8));
    return "";
  }
  char* input_ = nullptr;
  char* ours_ = nullptr;
  char* theirs_ = nullptr;
  void* scalar_ = nullptr;
  size_t inBytes_ = 0;
  size_t span_ = 0;
};

struct Placement {
  const void* send;
  void* recv;
};

// NCCL's in-place layouts: AllGather sends from the rank's block of the output, ReduceScatter
// receives into the rank's block of the input.
Placement placeIn(const Case& c, int rank, size_t elem, char* buffer, const char* input) {
  if (!c.inPlace) return {input, buffer};
  const size_t block = c.count * elem * static_cast<size_t>(rank);
  if (c.coll == Coll::kAllGather) return {buffer + block, buffer};
  if (c.coll == Coll::kReduceScatter) return {buffer, buffer + block};
  return {buffer, buffer};
}

ncclResult_t callOnce(const Case& c, const Placement& p, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream,
                      const RealNccl* real) {
  switch (c.coll) {
    case Coll::kAllReduce:
      return real ? real->allReduce(p.send, p.recv, c.count, c.dtype, op, comm, stream)
                  : ncclAllReduce(p.send, p.recv, c.count, c.dtype, op, comm, stream);
    case Coll::kAllGather:
      return real ? real->allGather(p.send, p.recv, c.count, c.dtype, comm, stream)
                  : ncclAllGather(p.send, p.recv, c.count, c.dtype, comm, stream);
    case Coll::kReduceScatter:
      return real ? real->reduceScatter(p.send, p.recv, c.count, c.dtype, op, comm, stream)
                  : ncclReduceScatter(p.send, p.recv, c.count, c.dtype, op, comm, stream);
  }
  return ncclInvalidArgument;
}

// flashccl's call, eager or captured into a graph and replayed (three times out of place: a graph
// must stay right on every replay; once in place, which changes its own input).
std::string runOurs(Rank& r, const Case& c, const Placement& p, ncclRedOp_t op) {
  if (!c.graph) {
    CHECK_NCCL(callOnce(c, p, op, r.comm, r.stream, nullptr));
    CHECK_CUDA(cudaStreamSynchronize(r.stream));
    return "";
  }
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(r.stream, cudaStreamCaptureModeThreadLocal));
  const ncclResult_t called = callOnce(c, p, op, r.comm, r.stream, nullptr);
  const cudaError_t ended = cudaStreamEndCapture(r.stream, &graph);
  CHECK_NCCL(called);
  CHECK_CUDA(ended);
  std::string error;
  cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
  for (int k = 0; k < (c.inPlace ? 1 : 3) && e == cudaSuccess; ++k) e = cudaGraphLaunch(exec, r.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(r.stream);
  if (e != cudaSuccess) error = std::string("graph: ") + cudaGetErrorString(e);
  if (exec) cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return error;
}

// One case on this rank: "" when this rank's part passed, else what failed. *outputHash: the
// bits flashccl produced here.
std::string runCase(Rank& r, const Case& c, const Layout& layout, InputCache& cache, uint64_t* outputHash) {
  const int n = r.options.nranks;
  const int rank = r.options.rank;
  const size_t elem = typeSize(c.dtype);
  const size_t inCount = c.coll == Coll::kReduceScatter ? c.count * n : c.count;
  const size_t outCount = c.coll == Coll::kAllGather ? c.count * n : c.count;
  CaseBuffers b;
  if (std::string e = b.allocate(inCount * elem, outCount * elem); !e.empty()) return e;
  const std::vector<std::vector<char>>& inputs = cache.get(c, inCount, n);
  CHECK_CUDA(cudaMemcpy(b.input_, inputs[rank].data(), inCount * elem, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(b.ours_, 0xA5, b.span_));
  CHECK_CUDA(cudaMemset(b.theirs_, 0xA5, b.span_));
  const Placement ours = placeIn(c, rank, elem, b.ours_, b.input_);
  const Placement theirs = placeIn(c, rank, elem, b.theirs_, b.input_);
  if (c.inPlace) {
    CHECK_CUDA(cudaMemcpy(const_cast<void*>(ours.send), b.input_, inCount * elem, cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpy(const_cast<void*>(theirs.send), b.input_, inCount * elem, cudaMemcpyDeviceToDevice));
  }
  CHECK_CUDA(cudaDeviceSynchronize());

  ncclRedOp_t op = ncclSum;
  std::vector<double> scalars(n, 1.0);
  switch (c.op) {
    case Op::kSum: op = ncclSum; break;
    case Op::kProd: op = ncclProd; break;
    case Op::kMax: op = ncclMax; break;
    case Op::kMin: op = ncclMin; break;
    case Op::kAvg: op = ncclAvg; break;
    case Op::kPreMulSumHost:
    case Op::kPreMulSumDevice: {
      for (int q = 0; q < n; ++q) scalars[q] = elementValue(c.dtype, scalarOf(c.dtype, q).data());
      std::vector<char> mine = scalarOf(c.dtype, rank);
      void* where = mine.data();
      if (c.op == Op::kPreMulSumDevice) {
        CHECK_CUDA(cudaMemcpy(b.scalar_, mine.data(), mine.size(), cudaMemcpyHostToDevice));
        where = b.scalar_;
      }
      CHECK_NCCL(ncclRedOpCreatePreMulSum(&op, where, c.dtype,
                                          c.op == Op::kPreMulSumDevice ? ncclScalarDevice : ncclScalarHostImmediate,
                                          r.comm));
      break;
    }
  }
  std::string failure;
  const ncclResult_t reference = callOnce(c, theirs, op, r.comm, r.stream, &r.real);
  if (reference != ncclSuccess) failure = std::string("NCCL's own call: ") + ncclGetErrorString(reference);
  if (failure.empty() && cudaStreamSynchronize(r.stream) != cudaSuccess) failure = "NCCL's own call did not finish";
  if (failure.empty()) failure = runOurs(r, c, ours, op);
  if (op >= ncclNumOps) ncclRedOpDestroy(op, r.comm);
  if (!failure.empty()) return failure;

  const char* ran = flashcclLastAlgorithm(r.comm);
  const std::string expected = expectedAlgorithm(c, layout, r.options.pipelinedAllReduce);
  if (ran == nullptr || expected != ran) {
    return std::string("ran ") + (ran ? ran : "(unknown communicator)") + ", not " + expected;
  }
  std::vector<char> got(outCount * elem), want(outCount * elem);
  CHECK_CUDA(cudaMemcpy(got.data(), ours.recv, got.size(), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(want.data(), theirs.recv, want.size(), cudaMemcpyDeviceToHost));
  *outputHash = hashBytes(got);
  const Verdict verdict = compareWithNccl(c, rank, n, inputs, scalars, got, want);
  return verdict.ok ? "" : verdict.detail;
}

// What flashccl says about the communicator, against what the layout needs.
bool checkSetup(Rank& r, const Layout& layout, std::string* state) {
  const char* reason = nullptr;
  const int code = flashcclCommState(r.comm, &reason);
  if (code == 1) *state = "armed";
  else if (code == -1) *state = std::string("disabled: ") + (reason ? reason : "");
  else *state = "state " + std::to_string(code);
  if (layout.armed) return code == 1;
  return code == -1 && reason != nullptr && std::strstr(reason, r.options.expectDisabled.c_str()) != nullptr;
}

int runCases(Rank& r, const Layout& layout, ScenarioRecord* record) {
  const std::vector<Case> cases = makeCases(r.options.colls, r.options.matrix);
  InputCache cache;
  const bool root = r.options.rank == 0;
  for (const Case& c : cases) {
    uint64_t hash = 0;
    const std::string failure = runCase(r, c, layout, cache, &hash);
    if (!failure.empty()) std::fprintf(stderr, "rank %d %s: %s\n", r.options.rank, c.name().c_str(), failure.c_str());
    // Every rank's verdict and output hash, so rank 0 reports the case as a whole.
    std::vector<uint64_t> verdicts, hashes;
    if (std::string e = gatherWords(r, failure.empty() ? 0 : 1, &verdicts); !e.empty()) {
      std::fprintf(stderr, "rank %d: the check's own exchange failed: %s\n", r.options.rank, e.c_str());
      return 1;
    }
    if (std::string e = gatherWords(r, hash, &hashes); !e.empty()) return 1;
    std::string detail;
    for (int q = 0; q < r.options.nranks; ++q) {
      if (!verdicts[q]) continue;
      detail += (detail.empty() ? "rank " : "; rank ") + std::to_string(q) +
                (q == 0 ? ": " + failure : " failed (its log says why)");
    }
    const bool everyRankAlike = c.coll == Coll::kReduceScatter ||
                                std::all_of(hashes.begin(), hashes.end(), [&](uint64_t h) { return h == hashes[0]; });
    if (detail.empty() && !everyRankAlike) detail = "ranks hold different bits";
    const bool ok = detail.empty();
    record->addCase(c.name(), ok, detail);
    if (root) std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", c.name().c_str(), ok ? "" : ": ", detail.c_str());
    std::fflush(stdout);
  }
  return 0;
}

// On a fresh communicator, node 0 calls one collective and node 1 another that moves the same
// bytes between nodes (sum against max, float against int32), so NCCL's steps between nodes pair
// up and only the call records can tell. Returns this rank's asynchronous error after at most
// `timeoutS`. Ranks numbered node by node.
ncclResult_t disagreeOnce(Rank& r, const std::string& which, double timeoutS) {
  ncclComm_t fresh = nullptr;
  if (ncclCommSplit(r.comm, 0, r.options.rank, &fresh, nullptr) != ncclSuccess || fresh == nullptr) return ncclSystemError;
  const int node = r.options.rank / (r.options.nranks / r.options.nodes);
  const size_t count = which == "small" ? 256 : (size_t(1) << 20);
  const size_t bytes = count * sizeof(float);
  char *send = nullptr, *recv = nullptr;
  cudaMalloc(&send, bytes * r.options.nranks);
  cudaMalloc(&recv, bytes * r.options.nranks);
  cudaMemset(send, 0, bytes * r.options.nranks);
  cudaDeviceSynchronize();
  if (which == "allgather") {
    ncclAllGather(send, recv, count, node == 0 ? ncclFloat32 : ncclInt32, fresh, r.stream);
  } else if (which == "reducescatter") {
    ncclReduceScatter(send, recv, count, ncclFloat32, node == 0 ? ncclSum : ncclMax, fresh, r.stream);
  } else {
    ncclAllReduce(send, recv, count, ncclFloat32, node == 0 ? ncclSum : ncclMax, fresh, r.stream);
  }
  ncclResult_t state = ncclSuccess;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
  while (state == ncclSuccess && std::chrono::steady_clock::now() < deadline) {
    ncclCommGetAsyncError(fresh, &state);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ncclCommAbort(fresh);  // its kernels stop waiting; the rails go with it
  cudaStreamSynchronize(r.stream);
  cudaFree(send);
  cudaFree(recv);
  return state;
}

int runDisagreements(Rank& r, ScenarioRecord* record) {
  const bool root = r.options.rank == 0;
  for (const char* which : {"small", "allreduce", "allgather", "reducescatter"}) {
    const ncclResult_t state = disagreeOnce(r, which, 30);
    std::vector<uint64_t> states;
    if (!gatherWords(r, static_cast<uint64_t>(state), &states).empty()) return 1;
    std::string seen;
    bool ok = true;
    for (int q = 0; q < r.options.nranks; ++q) {
      seen += (q ? ", rank " : "rank ") + std::to_string(q) + " " +
              ncclGetErrorString(static_cast<ncclResult_t>(states[q]));
      ok = ok && states[q] == ncclInvalidUsage;
    }
    const std::string name = std::string("disagreement_") + which;
    record->addCase(name, ok, seen);
    if (root) std::printf("%s %s: %s\n", ok ? "PASS" : "FAIL", name.c_str(), seen.c_str());
    std::fflush(stdout);
  }
  return 0;
}

std::string layoutText(const Options& o) {
  return std::to_string(o.nodes) + " nodes, " + std::to_string(o.nranks) + " ranks" +
         (o.interleaved ? ", ranks interleaved across nodes" : "") +
         (o.pipelinedAllReduce ? ", FLASHCCL_ALGO=allreduce:allreduce_hier" : "");
}

int runRank(const Options& options) {
  Rank r;
  r.options = options;
  if (cudaSetDevice(0) != cudaSuccess || !r.real.load()) {
    std::fprintf(stderr, "rank %d: no GPU or no real NCCL behind flashccl\n", options.rank);
    return 2;
  }
  ncclUniqueId id;
  std::string error;
  if (options.rank == 0) {
    if (ncclGetUniqueId(&id) != ncclSuccess) error = "ncclGetUniqueId failed";
    if (error.empty()) error = writeIdFile(options.idFile, id);
  } else {
    error = readIdFile(options.idFile, 120, &id);
  }
  if (error.empty() && ncclCommInitRank(&r.comm, options.nranks, id, options.rank) != ncclSuccess) {
    error = "ncclCommInitRank failed";
  }
  if (error.empty() && (cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking) != cudaSuccess ||
                        cudaMalloc(&r.words, sizeof(uint64_t) * options.nranks) != cudaSuccess)) {
    error = "allocating the check's stream and words";
  }
  if (!error.empty()) {
    std::fprintf(stderr, "rank %d: %s\n", options.rank, error.c_str());
    return 2;
  }

  Layout layout;
  layout.nranks = options.nranks;
  layout.nnodes = options.nodes;
  layout.nodeMajor = !options.interleaved;
  layout.armed = options.expectDisabled.empty();
  ScenarioRecord record(options.scenario, layoutText(options));
  const auto start = std::chrono::steady_clock::now();
  std::string state;
  const bool setupOk = checkSetup(r, layout, &state);
  record.setSetup(setupOk, state);
  if (options.rank == 0) std::printf("%s setup: %s\n", setupOk ? "PASS" : "FAIL", state.c_str());
  const int status = options.disagreement ? runDisagreements(r, &record) : runCases(r, layout, &record);
  record.setSeconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (options.rank == 0) {
    std::printf("%s\n", record.summaryLine().c_str());
    if (!options.markdown.empty()) {
      if (FILE* f = std::fopen(options.markdown.c_str(), "w")) {
        std::fputs(record.markdown().c_str(), f);
        std::fclose(f);
      }
    }
  }
  ncclCommDestroy(r.comm);
  cudaFree(r.words);
  cudaStreamDestroy(r.stream);
  if (status != 0) return status;
  return record.passed() ? 0 : 1;
}

}  // namespace
}  // namespace flashccl_gpu_test::hierarchy

int main(int argc, char** argv) {
  flashccl_gpu_test::hierarchy::Options options;
  if (!flashccl_gpu_test::hierarchy::parseOptions(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s --rank R --nranks N --nodes M --id-file PATH --scenario NAME [--interleaved]\n"
                 "       [--expect-disabled TEXT] [--pipelined-allreduce] [--colls LIST] [--matrix quick|standard|full]\n"
                 "       [--disagreement] [--markdown PATH]\n",
                 argv[0]);
    return 2;
  }
  return flashccl_gpu_test::hierarchy::runRank(options);
}
