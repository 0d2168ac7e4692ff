#include "transport/p2p/peer_memory.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "base/config.h"
#include "topo/host_identity.h"
#include "transport/p2p/kernel_image.h"
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
  char* buffer = nullptr;
  uint64_t* state = nullptr;     // LaunchState, then the chunk counters, then thread-block flags
  HostWords* hostWords = nullptr;  // pinned, mapped
  int* hostAbort = nullptr;        // pinned, mapped
  std::vector<void*> ipcOpened;

  ~Resources() {
    if (device < 0) return;
    SavedDevice saved;
    cudaSetDevice(device);
    for (void* p : ipcOpened) cudaIpcCloseMemHandle(p);
    if (buffer) cudaFree(buffer);  // cudaFree waits for our kernels still using the buffer
    if (state) cudaFree(state);
    if (hostWords) cudaFreeHost(hostWords);
    if (hostAbort) cudaFreeHost(hostAbort);
    cudaGetLastError();  // teardown errors must not leak into the application's next CUDA call
  }
};

BufferLayoutRequest peerLayoutRequest(const Config& config, int nranks) {
  return BufferLayoutRequest{config.bufferBytes, nranks, std::min(config.lanes, kMaxLanes), 4, 0.25, 0.0625};
}

PeerMemory::~PeerMemory() = default;

std::unique_ptr<PeerMemory> PeerMemory::allocate(int rank, int nranks, int cudaDev,
                                                 const BufferLayoutRequest& request, PeerRecord* rec) {
  std::memset(rec, 0, sizeof(*rec));
  rec->magic = kRecordMagic;
  rec->version = kRecordVersion;
  rec->hostIdentity = hostIdentity();
  rec->pid = static_cast<int32_t>(getpid());
  rec->cudaDev = cudaDev;
  BufferLayout layout;
  const char* why = nullptr;
  if (!computeBufferLayout(request, &layout, &why)) {
    setFailure(rec, std::string("buffer layout: ") + why);
    return nullptr;
  }
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
  if (err == cudaSuccess) err = cudaMalloc(&res.buffer, request.bufferBytes);
  if (err == cudaSuccess) err = cudaMemset(res.buffer, 0, request.bufferBytes);
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
  dc.bufferBytes = request.bufferBytes;
  dc.layout = layout;
  identityWorldRanks(&dc);
  rec->bufferAddress = reinterpret_cast<uint64_t>(res.buffer);
  rec->bufferBytes = request.bufferBytes;
  rec->smCount = prop.multiProcessorCount;
  rec->ok = 1;
  return memory;
}

std::string PeerMemory::mapPeers(const PeerRecord* recs) {
  DeviceComm& dc = device_;
  Resources& res = *resources_;
  const PeerRecord& me = recs[dc.rank];
  int minSm = me.smCount;
  for (int r = 0; r < dc.nranks; ++r) {
    const PeerRecord& rec = recs[r];
    if (rec.magic != kRecordMagic || rec.version != kRecordVersion) {
      return "rank " + std::to_string(dc.worldRanks[r]) + " runs a different flashccl";
    }
    if (!rec.ok) return "rank " + std::to_string(dc.worldRanks[r]) + ": " + rec.failure;
    if (rec.bufferBytes != me.bufferBytes) {
      return "rank " + std::to_string(dc.worldRanks[r]) + " has a different FLASHCCL_BUFFER_BYTES";
    }
    if (rec.hostIdentity != me.hostIdentity) {
      return "rank " + std::to_string(dc.worldRanks[r]) +
             " is on another host (peer memory serves one node; FLASHCCL_NODE_ID groups ranks of one host only)";
    }
    minSm = std::min(minSm, rec.smCount);
  }
  dc.smCount = minSm;
  // Every chunked kernel is compiled for two 512-thread blocks per multiprocessor.
  dc.maxResidentBlocks = 2 * minSm;
  SavedDevice saved;
  cudaSetDevice(res.device);
  for (int r = 0; r < dc.nranks; ++r) {
    const PeerRecord& rec = recs[r];
    if (r == dc.rank) {
      dc.buffers[r] = res.buffer;
      continue;
    }
    if (rec.pid == me.pid) {
      int canAccess = 0;
      cudaDeviceCanAccessPeer(&canAccess, res.device, rec.cudaDev);
      if (!canAccess && rec.cudaDev != res.device) {
        return "GPU " + std::to_string(res.device) + " cannot access GPU " + std::to_string(rec.cudaDev);
      }
      if (rec.cudaDev != res.device) {
        const cudaError_t err = cudaDeviceEnablePeerAccess(rec.cudaDev, 0);
        if (err != cudaSuccess && err != cudaErrorPeerAccessAlreadyEnabled) {
          cudaGetLastError();
          return std::string("enabling peer access: ") + cudaGetErrorString(err);
        }
        cudaGetLastError();
      }
      dc.buffers[r] = reinterpret_cast<char*>(rec.bufferAddress);
    } else {
      void* mapped = nullptr;
      const cudaError_t err = cudaIpcOpenMemHandle(&mapped, rec.ipc, cudaIpcMemLazyEnablePeerAccess);
      if (err != cudaSuccess) {
        cudaGetLastError();
        return "opening rank " + std::to_string(dc.worldRanks[r]) + "'s buffer (CUDA IPC): " + cudaGetErrorString(err);
      }
      res.ipcOpened.push_back(mapped);
      dc.buffers[r] = static_cast<char*>(mapped);
    }
  }
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

void PeerMemory::abort() {
  if (resources_->hostAbort) *reinterpret_cast<volatile int*>(resources_->hostAbort) = 1;
}

}  // namespace flashccl
