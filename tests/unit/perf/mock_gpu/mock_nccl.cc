// The NCCL and flashccl part of the mock (see mock_gpu.h): communicators, groups, and exact
// collectives computed on the host when every rank's stream has reached the same operation. With
// MOCK_TUNER_DELAYS set, the tuner plugin's effect on NCCL's calls comes from mock_tuner.h.
#include <flashccl/flashccl.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "element_codec.h"
#include "mock_gpu.h"
#include "mock_tuner.h"

using flashccl::perf::DataType;
using flashccl::perf::ReduceOp;

namespace mocknccl {
struct World;
}

struct ncclComm {
  mocknccl::World* world;
  int rank;
  unsigned long long executed = 0;  // collectives this rank's stream has run (its sequence number)
  std::string lastAlgorithm = "?";
};

namespace {

enum class Kind { kAllReduce, kAllGather, kReduceScatter };

struct OpArgs {
  Kind kind;
  const void* send;
  void* recv;
  size_t count;
  ncclDataType_t type;
  ncclRedOp_t op;
};

struct Slot {
  std::vector<OpArgs> args;
  std::vector<bool> present;
  int arrived = 0;
  int left = 0;
  bool done = false;
};

}  // namespace

namespace mocknccl {
struct World {
  int nranks = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<unsigned long long, Slot> slots;
};
}  // namespace mocknccl

namespace {
using mocknccl::World;

std::mutex gWorldsMutex;
std::map<unsigned long long, std::shared_ptr<World>> gWorlds;
std::atomic<unsigned long long> gNextWorld{1};
std::atomic<int> gFault{0};
std::mutex gAlgorithmMutex;
std::string gAlgorithmName = "mock_oneshot";
std::atomic<long long> gNcclRuns{0}, gFlashcclRuns{0};
std::atomic<int> gNcclDelay{0}, gFlashcclDelay{0}, gOutlierEvery{0}, gOutlierMicros{0};
std::mutex gSequenceMutex;
std::string gSequence;
long long gNcclMeasuredOnRankZero = 0;  // under gSequenceMutex

// The delay of one collective on one rank (see mockgpu::setDelays, or `tuned` >= 0 from the tuner's
// emulation, mock_tuner.h); records rank 0's sequence.
// MOCK_DELAY_BF16=1 delays bf16 calls as float ones (flashccl tune's selection measures both).
bool delaysBfloat16() {
  static const bool on = [] {
    const char* v = std::getenv("MOCK_DELAY_BF16");
    return v && std::string(v) == "1";
  }();
  return on;
}

int delayMicros(bool flashccl, const ncclComm* comm, ncclDataType_t type, size_t count, int tuned) {
  if ((type != ncclFloat32 && !(type == ncclBfloat16 && delaysBfloat16())) || count < 16) return 0;
  int micros = tuned >= 0 ? tuned : flashccl ? gFlashcclDelay.load() : gNcclDelay.load();
  if (comm->rank != 0) return micros;
  std::lock_guard<std::mutex> lock(gSequenceMutex);
  gSequence += flashccl ? 'F' : 'N';
  if (!flashccl && gOutlierEvery > 0 && ++gNcclMeasuredOnRankZero % gOutlierEvery == 0) micros += gOutlierMicros;
  return micros;
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "mock NCCL: %s\n", why.c_str());
  std::abort();
}

size_t elementSize(ncclDataType_t type) {
  return flashccl::perf::dataTypeSize(static_cast<DataType>(type));
}

// One reduction step in the element's own type: integers wrap at their width, floats are computed in
// double and rounded once at the end by the caller.
struct Accumulator {
  DataType type;
  ReduceOp op;
  bool integer;
  bool isSigned;
  int bits;
  long double value = 0;  // floats
  unsigned long long word = 0;  // integers, as two's complement bits

  static long long signExtend(unsigned long long w, int bits) {
    if (bits == 64) return static_cast<long long>(w);
    const unsigned long long sign = 1ull << (bits - 1);
    w &= (sign << 1) - 1;
    return static_cast<long long>((w ^ sign) - sign);
  }
  void first(uint64_t elementBits) {
    if (integer) word = elementBits;
    else value = flashccl::perf::bitsToDouble(type, elementBits);
  }
  void add(uint64_t elementBits) {
    if (!integer) {
      const long double x = flashccl::perf::bitsToDouble(type, elementBits);
      switch (op) {
        case ReduceOp::kSum: case ReduceOp::kAvg: value += x; break;
        case ReduceOp::kProd: value *= x; break;
        case ReduceOp::kMin: value = x < value ? x : value; break;
        case ReduceOp::kMax: value = x > value ? x : value; break;
        default: die("bad op");
      }
      return;
    }
    const bool lessThan = isSigned ? signExtend(elementBits, bits) < signExtend(word, bits)
                                   : (elementBits & mask()) < (word & mask());
    switch (op) {
      case ReduceOp::kSum: case ReduceOp::kAvg: word += elementBits; break;
      case ReduceOp::kProd: word *= elementBits; break;
      case ReduceOp::kMin: if (lessThan) word = elementBits; break;
      case ReduceOp::kMax: if (!lessThan && elementBits != word) word = elementBits; break;
      default: die("bad op");
    }
  }
  unsigned long long mask() const { return bits == 64 ? ~0ull : (1ull << bits) - 1; }
  uint64_t result(int nranks) const {
    if (!integer) {
      const double v = static_cast<double>(op == ReduceOp::kAvg ? value / nranks : value);
      return flashccl::perf::doubleToBits(type, v);
    }
    unsigned long long w = word & mask();
    if (op == ReduceOp::kAvg) {
      if (isSigned) w = static_cast<unsigned long long>(signExtend(w, bits) / nranks) & mask();
      else w = w / static_cast<unsigned long long>(nranks);
    }
    return w;
  }
};

Accumulator makeAccumulator(ncclDataType_t nccltype, ncclRedOp_t ncclop) {
  Accumulator a;
  a.type = static_cast<DataType>(nccltype);
  a.op = static_cast<ReduceOp>(ncclop);
  a.integer = flashccl::perf::isIntegerType(a.type);
  a.isSigned = a.type == DataType::kInt8 || a.type == DataType::kInt32 || a.type == DataType::kInt64;
  a.bits = static_cast<int>(8 * elementSize(nccltype));
  return a;
}

// Runs the collective for every rank at once; inputs are read in full before any output is written,
// so in-place calls are right.
void compute(World& world, Slot& slot) {
  const OpArgs& a0 = slot.args[0];
  for (const OpArgs& a : slot.args)
    if (a.kind != a0.kind || a.count != a0.count || a.type != a0.type ||
        (a.kind != Kind::kAllGather && a.op != a0.op))
      die("ranks disagree about the collective they are running (a sequencing bug in the tool)");
  const int n = world.nranks;
  const size_t es = elementSize(a0.type);
  const int esi = static_cast<int>(es);
  const size_t count = a0.count;
  std::vector<std::vector<unsigned char>> inputs(static_cast<size_t>(n));
  const size_t inputElements = a0.kind == Kind::kReduceScatter ? count * n : count;
  for (int r = 0; r < n; ++r) {
    const unsigned char* p = static_cast<const unsigned char*>(slot.args[static_cast<size_t>(r)].send);
    inputs[static_cast<size_t>(r)].assign(p, p + inputElements * es);
  }
  auto reduceAt = [&](size_t index) {
    Accumulator acc = makeAccumulator(a0.type, a0.op);
    acc.first(flashccl::perf::loadElementBits(inputs[0].data(), index, esi));
    for (int r = 1; r < n; ++r)
      acc.add(flashccl::perf::loadElementBits(inputs[static_cast<size_t>(r)].data(), index, esi));
    return acc.result(n);
  };
  switch (a0.kind) {
    case Kind::kAllReduce: {
      std::vector<uint64_t> out(count);
      for (size_t i = 0; i < count; ++i) out[i] = reduceAt(i);
      for (const OpArgs& a : slot.args)
        for (size_t i = 0; i < count; ++i) flashccl::perf::storeElementBits(a.recv, i, esi, out[i]);
      break;
    }
    case Kind::kAllGather:
      for (const OpArgs& a : slot.args)
        for (int r = 0; r < n; ++r)
          std::memcpy(static_cast<unsigned char*>(a.recv) + r * count * es,
                      inputs[static_cast<size_t>(r)].data(), count * es);
      break;
    case Kind::kReduceScatter:
      for (int r = 0; r < n; ++r)
        for (size_t i = 0; i < count; ++i)
          flashccl::perf::storeElementBits(slot.args[static_cast<size_t>(r)].recv, i, esi,
                                           reduceAt(r * count + i));
      break;
  }
}

void rendezvous(ncclComm* comm, const OpArgs& args) {
  World& world = *comm->world;
  const unsigned long long sequence = comm->executed++;
  std::unique_lock<std::mutex> lock(world.mutex);
  Slot& slot = world.slots[sequence];
  if (slot.args.empty()) {
    slot.args.resize(static_cast<size_t>(world.nranks));
    slot.present.resize(static_cast<size_t>(world.nranks), false);
  }
  if (slot.present[static_cast<size_t>(comm->rank)]) die("a rank ran the same collective twice");
  slot.present[static_cast<size_t>(comm->rank)] = true;
  slot.args[static_cast<size_t>(comm->rank)] = args;
  if (++slot.arrived == world.nranks) {
    compute(world, slot);
    slot.done = true;
    world.changed.notify_all();
  } else {
    world.changed.wait(lock, [&] { return slot.done; });
  }
  if (++slot.left == world.nranks) world.slots.erase(sequence);
}

// ncclGroupStart/End: collectives issued inside a group reach their streams at the outermost End.
struct PendingOp {
  cudaStream_t stream;
  std::function<void()> work;
};
thread_local int tGroupDepth = 0;
thread_local std::vector<PendingOp> tPending;

void issue(cudaStream_t stream, std::function<void()> work) {
  if (tGroupDepth > 0) tPending.push_back({stream, std::move(work)});
  else mockgpu::submit(stream, std::move(work));
}

ncclResult_t collective(bool flashccl, Kind kind, const void* send, void* recv, size_t count,
                        ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  if (!comm || !stream) return ncclInvalidArgument;
  const OpArgs args{kind, send, recv, count, type, op};
  int tuned = -1;
  if (mocktuner::active()) {
    static const char* const kNames[] = {"allreduce", "allgather", "reducescatter"};
    const char* name = kNames[static_cast<int>(kind)];
    const size_t bytes = count * elementSize(type) * (kind == Kind::kAllReduce ? 1 : comm->world->nranks);
    if (flashccl) {
      std::string algorithm;
      tuned = mocktuner::flashcclCallMicros(comm->world->nranks, name, bytes, &algorithm);
      comm->lastAlgorithm = algorithm;
    } else {
      tuned = mocktuner::ncclCallMicros(comm->rank, comm->world->nranks, name, bytes);
    }
  } else if (flashccl) {
    std::lock_guard<std::mutex> lock(gAlgorithmMutex);
    comm->lastAlgorithm = gAlgorithmName;
  }
  issue(stream, [=] {
    // MOCK_HANG: flashccl's collectives never finish (a deadlocked kernel), for the watchdog test.
    while (flashccl && std::getenv("MOCK_HANG")) std::this_thread::sleep_for(std::chrono::seconds(1));
    (flashccl ? gFlashcclRuns : gNcclRuns)++;
    std::this_thread::sleep_for(std::chrono::microseconds(delayMicros(flashccl, comm, type, count, tuned)));
    rendezvous(comm, args);
    if (!flashccl || kind != Kind::kAllReduce) return;
    const size_t es = elementSize(type);
    unsigned char* out = static_cast<unsigned char*>(recv);
    switch (static_cast<mockgpu::Fault>(gFault.load())) {
      case mockgpu::Fault::kNone: break;
      case mockgpu::Fault::kFlipFirstElementOnRank1:
        if (comm->rank == 1) out[0] ^= 0x11;
        break;
      case mockgpu::Fault::kSkipLastElementOnRank0:
        if (comm->rank == 0) std::memset(out + (count - 1) * es, 0xFF, es);  // as poisoned
        break;
      case mockgpu::Fault::kDifferentLastBitOnRank1:
        if (comm->rank == 1) out[(count - 1) * es] ^= 0x01;
        break;
    }
  });
  return ncclSuccess;
}

ncclResult_t groupStart() {
  ++tGroupDepth;
  return ncclSuccess;
}

ncclResult_t groupEnd() {
  if (tGroupDepth == 0) return ncclInvalidUsage;
  if (--tGroupDepth == 0) {
    for (PendingOp& op : tPending) mockgpu::submit(op.stream, std::move(op.work));
    tPending.clear();
  }
  return ncclSuccess;
}

std::shared_ptr<World> worldFor(unsigned long long id, int nranks) {
  std::lock_guard<std::mutex> lock(gWorldsMutex);
  std::shared_ptr<World>& world = gWorlds[id];
  if (!world) {
    world = std::make_shared<World>();
    world->nranks = nranks;
  }
  return world;
}

// The "real NCCL" entry points flashcclRealFunction hands out.
ncclResult_t realAllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t o,
                           ncclComm_t c, cudaStream_t st) {
  return collective(false, Kind::kAllReduce, s, r, n, t, o, c, st);
}
ncclResult_t realAllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c,
                           cudaStream_t st) {
  return collective(false, Kind::kAllGather, s, r, n, t, ncclSum, c, st);
}
ncclResult_t realReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t o,
                               ncclComm_t c, cudaStream_t st) {
  return collective(false, Kind::kReduceScatter, s, r, n, t, o, c, st);
}
ncclResult_t realGroupStart() { return groupStart(); }
ncclResult_t realGroupEnd() { return groupEnd(); }

}  // namespace

namespace mockgpu {
void setFlashcclFault(Fault fault) { gFault = static_cast<int>(fault); }
void setFlashcclAlgorithmName(const std::string& name) {
  std::lock_guard<std::mutex> lock(gAlgorithmMutex);
  gAlgorithmName = name;
}
long long ncclCollectivesRun() { return gNcclRuns; }
void setDelays(int ncclMicros, int flashcclMicros, int outlierEvery, int outlierMicros) {
  gNcclDelay = ncclMicros;
  gFlashcclDelay = flashcclMicros;
  gOutlierEvery = outlierEvery;
  gOutlierMicros = outlierMicros;
  std::lock_guard<std::mutex> lock(gSequenceMutex);
  gSequence.clear();
  gNcclMeasuredOnRankZero = 0;
}
std::string measuredSequence() {
  std::lock_guard<std::mutex> lock(gSequenceMutex);
  return gSequence;
}
long long flashcclCollectivesRun() { return gFlashcclRuns; }
}  // namespace mockgpu

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  *version = 22809;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  std::memset(id, 0, sizeof(*id));
  const unsigned long long world = gNextWorld++;
  std::memcpy(id->internal, &world, sizeof(world));
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  if (std::getenv("MOCK_FAIL_COMM_INIT")) return ncclSystemError;
  unsigned long long world = 0;
  std::memcpy(&world, id.internal, sizeof(world));
  if (!world || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  ncclComm* c = new ncclComm;
  c->world = worldFor(world, nranks).get();
  if (c->world->nranks != nranks) return ncclInvalidArgument;
  c->rank = rank;
  *comm = c;
  mocktuner::onCommInit(rank, nranks);
  return ncclSuccess;
}

ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int*) {
  std::shared_ptr<World> world = worldFor(gNextWorld++, ndev);
  for (int r = 0; r < ndev; ++r) {
    comms[r] = new ncclComm;
    comms[r]->world = world.get();
    comms[r]->rank = r;
    mocktuner::onCommInit(r, ndev);
  }
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t* asyncError) {
  *asyncError = ncclSuccess;
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t) { return "mock NCCL error"; }
const char* ncclGetLastError(ncclComm_t) { return ""; }

ncclResult_t ncclGroupStart() { return groupStart(); }
ncclResult_t ncclGroupEnd() { return groupEnd(); }

ncclResult_t ncclAllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t o,
                           ncclComm_t c, cudaStream_t st) {
  return collective(true, Kind::kAllReduce, s, r, n, t, o, c, st);
}
ncclResult_t ncclAllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c,
                           cudaStream_t st) {
  return collective(true, Kind::kAllGather, s, r, n, t, ncclSum, c, st);
}
ncclResult_t ncclReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t o,
                               ncclComm_t c, cudaStream_t st) {
  return collective(true, Kind::kReduceScatter, s, r, n, t, o, c, st);
}

const char* flashcclVersion(void) { return "0.0.0-mock"; }
const char* flashcclRealLibraryPath(void) { return "/mock/libnccl.so.2"; }
// An empty algorithm name stands for "flashccl is disabled": no name, state -1.
const char* flashcclLastAlgorithm(ncclComm_t comm) {
  return comm && !comm->lastAlgorithm.empty() ? comm->lastAlgorithm.c_str() : nullptr;
}

int flashcclCommState(ncclComm_t comm, const char** reason) {
  if (!comm) return -2;
  if (comm->lastAlgorithm.empty()) {
    if (reason) *reason = "FLASHCCL_DISABLE=1";
    return -1;
  }
  return 1;
}

void* flashcclRealFunction(const char* name) {
  const std::string n = name;
  if (n == "ncclAllReduce") return reinterpret_cast<void*>(&realAllReduce);
  if (n == "ncclAllGather") return reinterpret_cast<void*>(&realAllGather);
  if (n == "ncclReduceScatter") return reinterpret_cast<void*>(&realReduceScatter);
  if (n == "ncclGroupStart") return reinterpret_cast<void*>(&realGroupStart);
  if (n == "ncclGroupEnd") return reinterpret_cast<void*>(&realGroupEnd);
  return nullptr;
}

}  // extern "C"
