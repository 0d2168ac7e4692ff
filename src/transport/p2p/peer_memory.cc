#include "transport/p2p/peer_memory.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "base/config.h"
#include "topo/host_identity.h"
#include "transport/p2p/kernel_image.h"
#include "transport/p2p/memory_account.h"
#include "transport/p2p/p2p_check.h"

namespace flashccl {

namespace {

constexpr uint32_t kRecordMagic = 0xf1a5cc1du;
constexpr uint32_t kRecordVersion = 2;
constexpr size_t kLaunchStateWords = sizeof(LaunchState) / sizeof(uint64_t);
constexpr size_t kStateWords = kLaunchStateWords + kChunkCounterCount + kMaxExecThreadBlocks;

using HostWords = PeerHostWords;

// Until set-up says otherwise (communicators across nodes), rank r here is communicator rank r.
void identityWorldRanks(DeviceComm* dc) {
  for (int r = 0; r < kMaxPeerRanks; ++r) dc->worldRanks[r] = r;
}

void setFailure(PeerRecord* rec, const std::string& why) {
  std::snprintf(rec->failure, sizeof(rec->failure), "%s", why.c_str());
}

// Restores the caller's current device on every path out.
class SavedDevice {
 public:
  SavedDevice() { cudaGetDevice(&device_); }
  ~SavedDevice() { cudaSetDevice(device_); }

 private:
  int device_ = 0;
};

}  // namespace

struct PeerMemory::Resources {
  int device = -1;  // -1: adopted or descriptive, nothing to free
  char* buffer = nullptr;          // the buffer our kernels use now
  std::vector<char*> ownBuffers;   // every buffer allocated: the one in use and the one before growth
  std::vector<std::unique_ptr<PeerBytesHeld>> counted;  // FLASHCCL_MEMORY_LIMIT's count of them
  size_t allocatedBytes = 0;
  uint64_t* state = nullptr;     // LaunchState, then the chunk counters, then thread-block flags
  HostWords* hostWords = nullptr;  // pinned, mapped
  int* hostAbort = nullptr;        // pinned, mapped
  std::vector<void*> ipcOpened;    // peers' buffers, every generation
  // A growth between allocateGrowth and finishGrowth.
  char* growing = nullptr;
  size_t growingBytes = 0;
  BufferLayout growingLayout{};
  char* growingBuffers[kMaxPeerRanks] = {};
  std::vector<void*> growingOpened;
  // Growth runs on the communicator's thread, a release (ncclCommRevoke) may come from another.
  std::mutex lock;
  bool released = false;

  ~Resources() {
    if (device < 0) return;
    SavedDevice saved;
    cudaSetDevice(device);
    dropGrowth();
    for (void* p : ipcOpened) cudaIpcCloseMemHandle(p);
    for (char* b : ownBuffers) cudaFree(b);  // cudaFree waits for our kernels still using the buffer
    if (state) cudaFree(state);
    if (hostWords) cudaFreeHost(hostWords);
    if (hostAbort) cudaFreeHost(hostAbort);
    cudaGetLastError();  // teardown errors must not leak into the application's next CUDA call
  }

  // Allocates and zeroes one buffer, counted; cudaSuccess or the error.
  cudaError_t allocateBuffer(size_t bytes, char** out) {
    cudaError_t err = cudaMalloc(out, bytes);
    if (err == cudaSuccess) err = cudaMemset(*out, 0, bytes);
    if (err != cudaSuccess) {
      if (*out) cudaFree(*out);
      *out = nullptr;
      return err;
    }
    counted.push_back(std::make_unique<PeerBytesHeld>(device, bytes));
    allocatedBytes += bytes;
    return cudaSuccess;
  }

  // Frees what a growth made that was not committed (every path out of it, and teardown).
  void dropGrowth() {
    for (void* p : growingOpened) cudaIpcCloseMemHandle(p);
    growingOpened.clear();
    if (growing) {
      cudaFree(growing);
      counted.pop_back();  // allocateBuffer counted it last
      allocatedBytes -= growingBytes;
      growing = nullptr;
    }
    cudaGetLastError();
  }
};

namespace {

// Every record describes a buffer this rank can map: the same flashccl, allocated, of the same
// size, on this host. "" or why not.
std::string whyRecordsUnusable(const PeerRecord* recs, int nranks, const PeerRecord& me, const int* worldRanks) {
  for (int r = 0; r < nranks; ++r) {
    const PeerRecord& rec = recs[r];
    if (rec.magic != kRecordMagic || rec.version != kRecordVersion) {
      return "rank " + std::to_string(worldRanks[r]) + " runs a different flashccl";
    }
    if (!rec.ok) return "rank " + std::to_string(worldRanks[r]) + ": " + rec.failure;
    if (rec.bufferBytes != me.bufferBytes) {
      return "rank " + std::to_string(worldRanks[r]) + " has a different FLASHCCL_BUFFER_BYTES";
    }
    if (rec.hostIdentity != me.hostIdentity) {
      return "rank " + std::to_string(worldRanks[r]) +
             " is on another host (peer memory serves one node; FLASHCCL_NODE_ID groups ranks of one host only)";
    }
  }
  return "";
}

// Points out[r] at rank r's buffer: ours, a peer's in this process directly, another process's
// through CUDA IPC (opened handles appended to *opened). "" or why not.
std::string mapBuffers(const PeerRecord* recs, int rank, int nranks, int device, char* own, const int* worldRanks,
                       char** out, std::vector<void*>* opened) {
  const PeerRecord& me = recs[rank];
  for (int r = 0; r < nranks; ++r) {
    const PeerRecord& rec = recs[r];
    if (r == rank) {
      out[r] = own;
      continue;
    }
    if (rec.pid == me.pid) {
      int canAccess = 0;
      cudaDeviceCanAccessPeer(&canAccess, device, rec.cudaDev);
      if (!canAccess && rec.cudaDev != device) {
        return "GPU " + std::to_string(device) + " cannot access GPU " + std::to_string(rec.cudaDev);
      }
      if (rec.cudaDev != device) {
        const cudaError_t err = cudaDeviceEnablePeerAccess(rec.cudaDev, 0);
        if (err != cudaSuccess && err != cudaErrorPeerAccessAlreadyEnabled) {
          cudaGetLastError();
          return std::string("enabling peer access: ") + cudaGetErrorString(err);
        }
        cudaGetLastError();
      }
      out[r] = reinterpret_cast<char*>(rec.bufferAddress);
    } else {
      void* mapped = nullptr;
      const cudaError_t err = cudaIpcOpenMemHandle(&mapped, rec.ipc, cudaIpcMemLazyEnablePeerAccess);
      if (err != cudaSuccess) {
        cudaGetLastError();
        return "opening rank " + std::to_string(worldRanks[r]) + "'s buffer (CUDA IPC): " + cudaGetErrorString(err);
      }
      opened->push_back(mapped);
      out[r] = static_cast<char*>(mapped);
    }
  }
  return "";
}

// The part of a record that says who this rank is.
void describeRank(PeerRecord* rec, int cudaDev) {
  std::memset(rec, 0, sizeof(*rec));
  rec->magic = kRecordMagic;
  rec->version = kRecordVersion;
  rec->hostIdentity = hostIdentity();
  rec->pid = static_cast<int32_t>(getpid());
  rec->cudaDev = cudaDev;
}

}  // namespace

BufferLayoutRequest peerLayoutRequest(const Config& config, int nranks) {
  return BufferLayoutRequest{config.bufferBytes, nranks, std::min(config.lanes, kMaxLanes), 4, 0.25, 0.0625};
}

PeerMemory::~PeerMemory() = default;

std::unique_ptr<PeerMemory> PeerMemory::allocate(int rank, int nranks, int cudaDev,
                                                 const BufferLayoutRequest& request, PeerRecord* rec) {
  BufferLayout layout;
  const char* why = nullptr;
  if (!computeBufferLayout(request, &layout, &why)) {
    describeRank(rec, cudaDev);
    setFailure(rec, std::string("buffer layout: ") + why);
    return nullptr;
  }
  return allocate(rank, nranks, cudaDev, layout, request.bufferBytes, rec);
}

std::unique_ptr<PeerMemory> PeerMemory::allocate(int rank, int nranks, int cudaDev, const BufferLayout& layout,
                                                 size_t bufferBytes, PeerRecord* rec) {
  describeRank(rec, cudaDev);
  std::unique_ptr<PeerMemory> memory(new PeerMemory());
  memory->resources_.reset(new Resources());
  Resources& res = *memory->resources_;
  res.device = cudaDev;
  SavedDevice saved;
  cudaDeviceProp prop;
  cudaError_t err = cudaSetDevice(cudaDev);
  if (err == cudaSuccess) {
    const std::string noCode = kernelImageProblem(cudaDev);
    if (!noCode.empty()) {
      setFailure(rec, noCode);
      return nullptr;
    }
  }
  if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, cudaDev);
  if (err == cudaSuccess) err = res.allocateBuffer(layout.totalBytes, &res.buffer);
  if (err == cudaSuccess) res.ownBuffers.push_back(res.buffer);
  if (err == cudaSuccess) err = cudaMalloc(&res.state, kStateWords * sizeof(uint64_t));
  if (err == cudaSuccess) err = cudaMemset(res.state, 0, kStateWords * sizeof(uint64_t));
  if (err == cudaSuccess) err = cudaHostAlloc(&res.hostWords, sizeof(HostWords), cudaHostAllocMapped);
  if (err == cudaSuccess) err = cudaHostAlloc(&res.hostAbort, sizeof(int), cudaHostAllocMapped);
  if (err == cudaSuccess) err = cudaIpcGetMemHandle(&rec->ipc, res.buffer);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    cudaGetLastError();
    setFailure(rec, std::string("allocating peer buffers: ") + cudaGetErrorString(err));
    return nullptr;
  }
  std::memset(res.hostWords, 0, sizeof(HostWords));
  *res.hostAbort = 0;
  DeviceComm& dc = memory->device_;
  std::memset(&dc, 0, sizeof(dc));
  dc.rank = rank;
  dc.nranks = nranks;
  dc.bufferBytes = layout.totalBytes;
  dc.layout = layout;
  identityWorldRanks(&dc);
  rec->bufferAddress = reinterpret_cast<uint64_t>(res.buffer);
  rec->bufferBytes = bufferBytes;
  rec->smCount = prop.multiProcessorCount;
  rec->ok = 1;
  return memory;
}

void PeerMemory::allocateGrowth(const BufferLayout& layout, PeerRecord* rec) {
  Resources& res = *resources_;
  std::lock_guard<std::mutex> hold(res.lock);
  describeRank(rec, res.device);
  if (res.released) {
    setFailure(rec, "the communicator was stopped");
    return;
  }
  SavedDevice saved;
  cudaError_t err = cudaSetDevice(res.device);
  res.growingBytes = layout.totalBytes;
  if (err == cudaSuccess) err = res.allocateBuffer(layout.totalBytes, &res.growing);
  if (err == cudaSuccess) err = cudaIpcGetMemHandle(&rec->ipc, res.growing);
  // Zeroed before any peer can write into it: the memset runs on the legacy stream.
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    cudaGetLastError();
    res.dropGrowth();
    setFailure(rec, std::string("allocating the full peer buffer: ") + cudaGetErrorString(err));
    return;
  }
  res.growingLayout = layout;
  rec->bufferAddress = reinterpret_cast<uint64_t>(res.growing);
  rec->bufferBytes = layout.totalBytes;
  rec->smCount = device_.smCount;
  rec->ok = 1;
}

std::string PeerMemory::mapGrowth(const PeerRecord* recs) {
  Resources& res = *resources_;
  std::lock_guard<std::mutex> hold(res.lock);
  if (res.growing == nullptr) return "no full buffer was allocated on rank " + std::to_string(device_.worldRanks[device_.rank]);
  const std::string unusable = whyRecordsUnusable(recs, device_.nranks, recs[device_.rank], device_.worldRanks);
  if (!unusable.empty()) return unusable;
  SavedDevice saved;
  cudaSetDevice(res.device);
  return mapBuffers(recs, device_.rank, device_.nranks, res.device, res.growing, device_.worldRanks,
                    res.growingBuffers, &res.growingOpened);
}

void PeerMemory::finishGrowth(bool commit) {
  Resources& res = *resources_;
  std::lock_guard<std::mutex> hold(res.lock);
  SavedDevice saved;
  cudaSetDevice(res.device);
  if (!commit || res.growing == nullptr || res.released) {
    res.dropGrowth();
    return;
  }
  res.ownBuffers.push_back(res.growing);
  res.ipcOpened.insert(res.ipcOpened.end(), res.growingOpened.begin(), res.growingOpened.end());
  res.growingOpened.clear();
  res.buffer = res.growing;
  res.growing = nullptr;
  for (int r = 0; r < device_.nranks; ++r) device_.buffers[r] = res.growingBuffers[r];
  device_.layout = res.growingLayout;
  device_.bufferBytes = res.growingBytes;
}

size_t PeerMemory::allocatedBytes() const { return resources_->allocatedBytes; }

std::string PeerMemory::mapPeers(const PeerRecord* recs) {
  DeviceComm& dc = device_;
  Resources& res = *resources_;
  const PeerRecord& me = recs[dc.rank];
  const std::string unusable = whyRecordsUnusable(recs, dc.nranks, me, dc.worldRanks);
  if (!unusable.empty()) return unusable;
  int minSm = me.smCount;
  for (int r = 0; r < dc.nranks; ++r) minSm = std::min(minSm, recs[r].smCount);
  dc.smCount = minSm;
  // Every chunked kernel is compiled for two 512-thread blocks per multiprocessor.
  dc.maxResidentBlocks = 2 * minSm;
  SavedDevice saved;
  cudaSetDevice(res.device);
  const std::string mapped = mapBuffers(recs, dc.rank, dc.nranks, res.device, res.buffer, dc.worldRanks, dc.buffers,
                                        &res.ipcOpened);
  if (!mapped.empty()) return mapped;
  dc.launchState = reinterpret_cast<LaunchState*>(res.state);
  dc.chunkCounters = res.state + kLaunchStateWords;
  dc.threadBlockFlags = res.state + kLaunchStateWords + kChunkCounterCount;
  HostWords* wordsDev = nullptr;
  int* abortDev = nullptr;
  if (cudaHostGetDevicePointer(reinterpret_cast<void**>(&wordsDev), res.hostWords, 0) != cudaSuccess ||
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&abortDev), res.hostAbort, 0) != cudaSuccess) {
    cudaGetLastError();
    return "mapping host flags";
  }
  dc.errorRecord = &wordsDev->error;
  dc.progress = wordsDev->progress;
  dc.abortFlag = abortDev;
  dc.sweepInterval = kLLSweepInterval;
  return "";
}

std::string PeerMemory::writeP2pCheck() {
  SavedDevice saved;
  cudaSetDevice(resources_->device);
  if (launchP2pCheckWrites(device_, nullptr) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    return std::string("P2P check write: ") + cudaGetErrorString(cudaGetLastError());
  }
  return "";
}

std::string PeerMemory::verifyP2pCheck() {
  uint64_t words[kMaxPeerRanks * 2] = {};
  SavedDevice saved;
  cudaSetDevice(resources_->device);
  char* buffer = resources_->buffer;
  if (cudaMemcpy(words, buffer, kP2pCheckBytes, cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemset(buffer, 0, kP2pCheckBytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    cudaGetLastError();
    return "reading the P2P check area";
  }
  for (int r = 0; r < device_.nranks; ++r) {
    if (r == device_.rank) continue;
    for (int w = 0; w < 2; ++w) {
      if (words[r * 2 + w] != p2pCheckPattern(r, device_.rank, w)) {
        return "P2P check: data written by rank " + std::to_string(r) + " did not arrive on rank " +
               std::to_string(device_.rank);
      }
    }
  }
  return "";
}

std::unique_ptr<PeerMemory> PeerMemory::adopt(const DeviceComm& device, PeerHostWords* hostWords) {
  std::unique_ptr<PeerMemory> memory(new PeerMemory());
  memory->resources_.reset(new Resources());  // device -1: frees nothing
  memory->resources_->hostWords = hostWords;
  memory->device_ = device;
  identityWorldRanks(&memory->device_);
  return memory;
}

std::unique_ptr<PeerMemory> PeerMemory::describeGrown(const DeviceComm& live, const BufferLayout& full,
                                                      size_t bufferBytes) {
  std::unique_ptr<PeerMemory> memory(new PeerMemory());
  memory->resources_.reset(new Resources());  // device -1: frees nothing
  memory->device_ = live;
  memory->device_.layout = full;
  memory->device_.bufferBytes = bufferBytes;
  return memory;
}

std::unique_ptr<PeerMemory> PeerMemory::describeOnly(int rank, int nranks, int smCount,
                                                     const BufferLayoutRequest& request) {
  BufferLayout layout;
  const char* why = nullptr;
  if (!computeBufferLayout(request, &layout, &why)) return nullptr;
  std::unique_ptr<PeerMemory> memory(new PeerMemory());
  memory->resources_.reset(new Resources());
  DeviceComm& dc = memory->device_;
  std::memset(&dc, 0, sizeof(dc));
  dc.rank = rank;
  dc.nranks = nranks;
  dc.smCount = smCount;
  dc.maxResidentBlocks = 2 * smCount;
  dc.bufferBytes = request.bufferBytes;
  dc.layout = layout;
  identityWorldRanks(&dc);
  return memory;
}

DeviceErrorRecord PeerMemory::errorRecord() const {
  DeviceErrorRecord record{};
  const HostWords* words = resources_->hostWords;
  if (words == nullptr) return record;
  record.code = *reinterpret_cast<const volatile int32_t*>(&words->error.code);
  if (record.code == kDeviceErrorNone) return record;
  std::atomic_thread_fence(std::memory_order_acquire);  // the kernel wrote the code last
  std::memcpy(&record, const_cast<const DeviceErrorRecord*>(&words->error), sizeof(record));
  return record;
}

const volatile uint64_t* PeerMemory::progressWords() const {
  const HostWords* words = resources_->hostWords;
  return words ? words->progress : nullptr;
}

ncclResult_t PeerMemory::asyncError() const {
  if (resources_->hostWords == nullptr) return ncclSuccess;
  const int code = *reinterpret_cast<const volatile int32_t*>(&resources_->hostWords->error.code);
  switch (code) {
    case kDeviceErrorNone:
    case kDeviceErrorAborted: return ncclSuccess;  // the abort itself is the application's doing
    case kDeviceErrorCallMismatch: return ncclInvalidUsage;
    default: return ncclSystemError;
  }
}

void PeerMemory::setWorldRanks(const std::vector<int>& worldRanks) {
  for (size_t r = 0; r < worldRanks.size() && r < static_cast<size_t>(kMaxPeerRanks); ++r) {
    device_.worldRanks[r] = worldRanks[r];
  }
}

void PeerMemory::releaseBuffers() {
  Resources& res = *resources_;
  if (res.device < 0) return;
  std::lock_guard<std::mutex> hold(res.lock);
  res.released = true;
  SavedDevice saved;
  cudaSetDevice(res.device);
  res.dropGrowth();
  for (void* p : res.ipcOpened) cudaIpcCloseMemHandle(p);
  for (char* b : res.ownBuffers) cudaFree(b);
  cudaGetLastError();
  res.ipcOpened.clear();
  res.ownBuffers.clear();
  res.counted.clear();
  res.allocatedBytes = 0;
  res.buffer = nullptr;
  std::memset(device_.buffers, 0, sizeof(device_.buffers));
}

bool PeerMemory::abortRequested() const {
  return resources_->hostAbort != nullptr && *reinterpret_cast<const volatile int*>(resources_->hostAbort) != 0;
}

void PeerMemory::abort() {
  if (resources_->hostAbort) *reinterpret_cast<volatile int*>(resources_->hostAbort) = 1;
}

}  // namespace flashccl
