#include "transport/p2p/peer_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <cuda_runtime_api.h>

#include "core/check.h"
#include "core/comm_context.h"
#include "core/config.h"
#include "core/log.h"
#include "select/selector.h"
#include "transport/p2p/exchange.h"
#include "transport/p2p/p2p_check.h"

namespace flashccl {

struct PeerMemory::Impl {
  int device = -1;
  char* buffer = nullptr;
  uint64_t* state = nullptr;  // llSequence[2], then the chunk counters
  int* hostError = nullptr;   // pinned, mapped
  int* hostAbort = nullptr;   // pinned, mapped
  std::vector<void*> ipcOpened;

  ~Impl() {
    if (device < 0) return;
    int saved = 0;
    cudaGetDevice(&saved);
    cudaSetDevice(device);
    for (void* p : ipcOpened) cudaIpcCloseMemHandle(p);
    if (buffer) cudaFree(buffer);  // cudaFree waits for our kernels still using the buffer
    if (state) cudaFree(state);
    if (hostError) cudaFreeHost(hostError);
    if (hostAbort) cudaFreeHost(hostAbort);
    cudaGetLastError();  // teardown errors must not leak into the application's next CUDA call
    cudaSetDevice(saved);
  }
};

namespace {

constexpr uint32_t kRecordMagic = 0xf1a5cc1du;
constexpr uint32_t kRecordVersion = 1;
constexpr size_t kStateWords = 2 + kChunkCounterCount + kMaxExecThreadBlocks;

struct SetupRecord {
  uint32_t magic;
  uint32_t version;
  uint64_t hostHash;
  int32_t pid;
  int32_t cudaDev;
  cudaIpcMemHandle_t ipc;
  uint64_t bufferAddress;
  uint64_t bufferBytes;
  uint64_t fingerprint;
  int32_t smCount;
  int32_t ok;
  char failure[96];
};

struct VerdictRecord {
  int32_t ok;
  char failure[124];
};

uint64_t hostHash() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string id = host;
  std::ifstream bootId("/proc/sys/kernel/random/boot_id");
  std::string boot;
  if (bootId >> boot) id += boot;
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : id) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

void setFailure(char* dst, size_t size, const std::string& why) {
  std::snprintf(dst, size, "%s", why.c_str());
}

// Allocates and describes this rank's side. Failures are recorded, not returned: the rank must
// still take part in the exchanges so every rank reaches the same verdict.
void prepareLocal(CommContext& ctx, PeerMemory::Impl* impl, SetupRecord* rec, BufferLayout* layout) {
  std::memset(rec, 0, sizeof(*rec));
  rec->magic = kRecordMagic;
  rec->version = kRecordVersion;
  rec->hostHash = hostHash();
  rec->pid = static_cast<int32_t>(getpid());
  rec->cudaDev = ctx.cudaDev;
  rec->fingerprint = ctx.selector() ? ctx.selector()->fingerprint() : 0;
  rec->ok = 0;
  const Config& config = Config::get();
  const char* why = nullptr;
  if (!computeBufferLayout(peerLayoutRequest(config, ctx.nranks), layout, &why)) {
    setFailure(rec->failure, sizeof(rec->failure), std::string("buffer layout: ") + why);
    return;
  }
  impl->device = ctx.cudaDev;
  cudaDeviceProp prop;
  cudaError_t err = cudaSetDevice(ctx.cudaDev);
  if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, ctx.cudaDev);
  if (err == cudaSuccess) err = cudaMalloc(&impl->buffer, config.bufferBytes);
  if (err == cudaSuccess) err = cudaMemset(impl->buffer, 0, config.bufferBytes);
  if (err == cudaSuccess) err = cudaMalloc(&impl->state, kStateWords * sizeof(uint64_t));
  if (err == cudaSuccess) err = cudaMemset(impl->state, 0, kStateWords * sizeof(uint64_t));
  if (err == cudaSuccess) err = cudaHostAlloc(&impl->hostError, sizeof(int), cudaHostAllocMapped);
  if (err == cudaSuccess) err = cudaHostAlloc(&impl->hostAbort, sizeof(int), cudaHostAllocMapped);
  if (err == cudaSuccess) err = cudaIpcGetMemHandle(&rec->ipc, impl->buffer);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    cudaGetLastError();
    setFailure(rec->failure, sizeof(rec->failure),
               std::string("allocating peer buffers: ") + cudaGetErrorString(err));
    return;
  }
  *impl->hostError = 0;
  *impl->hostAbort = 0;
  std::string notPrepared;
  if (ctx.selector() && !ctx.selector()->prepareAlgorithms(ctx, &notPrepared)) {
    setFailure(rec->failure, sizeof(rec->failure), "preparing algorithms: " + notPrepared);
    return;
  }
  rec->bufferAddress = reinterpret_cast<uint64_t>(impl->buffer);
  rec->bufferBytes = config.bufferBytes;
  rec->smCount = prop.multiProcessorCount;
  rec->ok = 1;
}

// Checks every rank's record and maps every peer's buffer. Returns "" or why it failed.
std::string mapPeers(CommContext& ctx, const std::vector<char>& all, const BufferLayout& layout,
                     PeerMemory::Impl* impl, DeviceComm* dc) {
  const SetupRecord* recs = reinterpret_cast<const SetupRecord*>(all.data());
  const SetupRecord& me = recs[ctx.rank];
  int minSm = me.smCount;
  for (int r = 0; r < ctx.nranks; ++r) {
    const SetupRecord& rec = recs[r];
    std::ostringstream why;
    if (rec.magic != kRecordMagic || rec.version != kRecordVersion) {
      why << "rank " << r << " runs a different flashccl";
    } else if (!rec.ok) {
      why << "rank " << r << ": " << rec.failure;
    } else if (rec.fingerprint != me.fingerprint) {
      why << "rank " << r << " selects algorithms differently (FLASHCCL_ALGO or tables differ)";
    } else if (rec.bufferBytes != me.bufferBytes) {
      why << "rank " << r << " has a different FLASHCCL_BUFFER_BYTES";
    } else if (rec.hostHash != me.hostHash) {
      why << "rank " << r << " is on another host (the NVLink path serves one node)";
    }
    if (!why.str().empty()) return why.str();
    minSm = std::min(minSm, rec.smCount);
  }
  std::memset(dc, 0, sizeof(*dc));
  dc->rank = ctx.rank;
  dc->nranks = ctx.nranks;
  dc->smCount = minSm;
  // Every chunked kernel is compiled for two 512-thread blocks per multiprocessor.
  dc->maxResidentBlocks = 2 * minSm;
  dc->bufferBytes = me.bufferBytes;
  dc->layout = layout;
  cudaSetDevice(ctx.cudaDev);
  for (int r = 0; r < ctx.nranks; ++r) {
    const SetupRecord& rec = recs[r];
    if (r == ctx.rank) {
      dc->buffers[r] = impl->buffer;
      continue;
    }
    if (rec.pid == me.pid) {
      int canAccess = 0;
      cudaDeviceCanAccessPeer(&canAccess, ctx.cudaDev, rec.cudaDev);
      if (!canAccess) return "GPU " + std::to_string(ctx.cudaDev) + " cannot access GPU " + std::to_string(rec.cudaDev);
      const cudaError_t err = cudaDeviceEnablePeerAccess(rec.cudaDev, 0);
      if (err != cudaSuccess && err != cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();
        return std::string("enabling peer access: ") + cudaGetErrorString(err);
      }
      cudaGetLastError();
      dc->buffers[r] = reinterpret_cast<char*>(rec.bufferAddress);
    } else {
      void* mapped = nullptr;
      const cudaError_t err = cudaIpcOpenMemHandle(&mapped, rec.ipc, cudaIpcMemLazyEnablePeerAccess);
      if (err != cudaSuccess) {
        cudaGetLastError();
        return "opening rank " + std::to_string(r) + "'s buffer (CUDA IPC): " + cudaGetErrorString(err);
      }
      impl->ipcOpened.push_back(mapped);
      dc->buffers[r] = static_cast<char*>(mapped);
    }
  }
  dc->llSequence = impl->state;
  dc->chunkCounters = impl->state + 2;
  dc->threadBlockFlags = impl->state + 2 + kChunkCounterCount;
  int* errDev = nullptr;
  int* abortDev = nullptr;
  if (cudaHostGetDevicePointer(reinterpret_cast<void**>(&errDev), impl->hostError, 0) != cudaSuccess ||
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&abortDev), impl->hostAbort, 0) != cudaSuccess) {
    cudaGetLastError();
    return "mapping host flags";
  }
  dc->errorWord = errDev;
  dc->abortFlag = abortDev;
  return "";
}

// Reads what the peers wrote into our buffer, then clears it for the kernels.
std::string verifyArrivals(const CommContext& ctx, PeerMemory::Impl* impl) {
  uint64_t words[kMaxPeerRanks * 2] = {};
  cudaSetDevice(ctx.cudaDev);
  if (cudaMemcpy(words, impl->buffer, kP2pCheckBytes, cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemset(impl->buffer, 0, kP2pCheckBytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    cudaGetLastError();
    return "reading the P2P check area";
  }
  for (int r = 0; r < ctx.nranks; ++r) {
    if (r == ctx.rank) continue;
    for (int w = 0; w < 2; ++w) {
      if (words[r * 2 + w] != p2pCheckPattern(r, ctx.rank, w)) {
        return "P2P check: data written by rank " + std::to_string(r) + " did not arrive on rank " +
               std::to_string(ctx.rank);
      }
    }
  }
  return "";
}

VerdictRecord makeVerdict(const std::string& failure) {
  VerdictRecord v;
  std::memset(&v, 0, sizeof(v));
  v.ok = failure.empty() ? 1 : 0;
  setFailure(v.failure, sizeof(v.failure), failure);
  return v;
}

// The first failure any rank reported, or "".
std::string firstFailure(const std::vector<char>& all, int nranks) {
  const VerdictRecord* v = reinterpret_cast<const VerdictRecord*>(all.data());
  for (int r = 0; r < nranks; ++r) {
    if (!v[r].ok) return v[r].failure;
  }
  return "";
}

}  // namespace

PeerMemory::~PeerMemory() = default;

std::unique_ptr<PeerMemory> PeerMemory::adopt(const DeviceComm& device) {
  std::unique_ptr<PeerMemory> memory(new PeerMemory());
  memory->impl_.reset(new Impl());  // device -1: frees nothing
  memory->device_ = device;
  return memory;
}

std::unique_ptr<PeerMemory> PeerMemory::describeOnly(int rank, int nranks, int smCount) {
  const Config& config = Config::get();
  BufferLayout layout;
  const char* why = nullptr;
  if (!computeBufferLayout(peerLayoutRequest(config, nranks), &layout, &why)) return nullptr;
  std::unique_ptr<PeerMemory> memory(new PeerMemory());
  memory->impl_.reset(new Impl());
  DeviceComm& dc = memory->device_;
  std::memset(&dc, 0, sizeof(dc));
  dc.rank = rank;
  dc.nranks = nranks;
  dc.smCount = smCount;
  dc.maxResidentBlocks = 2 * smCount;
  dc.bufferBytes = config.bufferBytes;
  dc.layout = layout;
  return memory;
}

// A quarter of the buffer for LL packet slots, a sixteenth for LL128 lines (MSCCL programs only),
// four chunk slots per lane.
BufferLayoutRequest peerLayoutRequest(const Config& config, int nranks) {
  return BufferLayoutRequest{config.bufferBytes, nranks, std::min(config.lanes, kMaxLanes), 4, 0.25,
                             0.0625};
}

ncclResult_t PeerMemory::asyncError() const {
  if (impl_->hostError == nullptr) return ncclSuccess;
  const int code = *reinterpret_cast<volatile int*>(impl_->hostError);
  switch (code) {
    case kDeviceErrorNone:
    case kDeviceErrorAborted: return ncclSuccess;  // the abort itself is the application's doing
    case kDeviceErrorCallMismatch: return ncclInvalidUsage;
    default: return ncclSystemError;
  }
}

void PeerMemory::abort() {
  if (impl_->hostAbort) *reinterpret_cast<volatile int*>(impl_->hostAbort) = 1;
}

ncclResult_t PeerMemory::setUp(const std::vector<CommContext*>& ctxs, std::string* verdict) {
  const size_t count = ctxs.size();
  std::vector<std::unique_ptr<PeerMemory>> made(count);
  std::vector<SetupRecord> records(count);
  std::vector<BufferLayout> layouts(count);
  std::vector<const void*> mine(count);
  int savedDevice = 0;
  cudaGetDevice(&savedDevice);
  for (size_t i = 0; i < count; ++i) {
    made[i].reset(new PeerMemory());
    made[i]->impl_.reset(new Impl());
    prepareLocal(*ctxs[i], made[i]->impl_.get(), &records[i], &layouts[i]);
    mine[i] = &records[i];
  }

  // 1. Everyone's buffer handles; map the peers'.
  std::vector<std::vector<char>> all;
  FCCL_CHECK(exchangeRecords(ctxs, sizeof(SetupRecord), mine, &all));
  std::vector<std::string> failures(count);
  for (size_t i = 0; i < count; ++i) {
    failures[i] = mapPeers(*ctxs[i], all[i], layouts[i], made[i]->impl_.get(), &made[i]->device_);
    if (failures[i].empty()) {
      cudaSetDevice(ctxs[i]->cudaDev);
      if (launchP2pCheckWrites(made[i]->device_, nullptr) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        failures[i] = std::string("P2P check write: ") + cudaGetErrorString(cudaGetLastError());
      }
    }
  }

  // 2. Barrier (everyone has written), then check what arrived.
  std::vector<VerdictRecord> verdicts(count);
  for (size_t i = 0; i < count; ++i) {
    verdicts[i] = makeVerdict(failures[i]);
    mine[i] = &verdicts[i];
  }
  FCCL_CHECK(exchangeRecords(ctxs, sizeof(VerdictRecord), mine, &all));
  for (size_t i = 0; i < count; ++i) {
    failures[i] = firstFailure(all[i], ctxs[i]->nranks);
    if (failures[i].empty() && Config::get().p2pCheck) failures[i] = verifyArrivals(*ctxs[i], made[i]->impl_.get());
    verdicts[i] = makeVerdict(failures[i]);
    mine[i] = &verdicts[i];
  }

  // 3. Everyone's verdict: all ranks of a communicator attach, or none does.
  FCCL_CHECK(exchangeRecords(ctxs, sizeof(VerdictRecord), mine, &all));
  verdict->clear();
  for (size_t i = 0; i < count; ++i) {
    const std::string failure = firstFailure(all[i], ctxs[i]->nranks);
    if (failure.empty()) {
      FCCL_INFO(kLogInit | kLogP2p,
                "comm %p rank %d/%d: peer buffers %zu MiB (LL %zu KiB per peer, %d lanes x %d slots x %zu KiB)",
                (void*)ctxs[i]->comm, ctxs[i]->rank, ctxs[i]->nranks, Config::get().bufferBytes >> 20,
                made[i]->device_.layout.llSlotBytes >> 10, made[i]->device_.layout.lanes,
                made[i]->device_.layout.slots, made[i]->device_.layout.chunkBytes >> 10);
      ctxs[i]->attachPeers(std::move(made[i]));
    } else if (verdict->empty()) {
      *verdict = failure;
    }
  }
  cudaSetDevice(savedDevice);
  return ncclSuccess;
}

}  // namespace flashccl
