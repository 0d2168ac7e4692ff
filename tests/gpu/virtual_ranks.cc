#include "virtual_ranks.h"

#include <chrono>
#include <cstring>
#include <thread>

#include "base/config.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl::testing {

std::unique_ptr<VirtualRanks> VirtualRanks::create(int nranks, uint64_t sweepInterval) {
  const Config& config = Config::get();
  BufferLayout layout{};
  const char* why = nullptr;
  if (!computeBufferLayout(peerLayoutRequest(config, nranks), &layout, &why)) return nullptr;
  cudaDeviceProp prop;
  if (cudaSetDevice(0) != cudaSuccess || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return nullptr;
  std::unique_ptr<VirtualRanks> v(new VirtualRanks());
  v->n_ = nranks;
  cudaError_t err = cudaHostAlloc(&v->hostWords_, nranks * sizeof(PeerHostWords), cudaHostAllocMapped);
  if (err == cudaSuccess) err = cudaHostAlloc(&v->hostAbort_, sizeof(int), cudaHostAllocMapped);
  if (err != cudaSuccess) return nullptr;
  std::memset(v->hostWords_, 0, nranks * sizeof(PeerHostWords));
  *v->hostAbort_ = 0;
  PeerHostWords* wordsDev = nullptr;
  int* abortFlag = nullptr;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&wordsDev), v->hostWords_, 0);
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&abortFlag), v->hostAbort_, 0);
  constexpr size_t kLaunchWords = sizeof(LaunchState) / sizeof(uint64_t);
  const size_t stateWords = kLaunchWords + kChunkCounterCount + kMaxExecThreadBlocks;
  v->buffers_.assign(nranks, nullptr);
  v->state_.assign(nranks, nullptr);
  v->streams_.assign(nranks, nullptr);
  for (int r = 0; r < nranks; ++r) {
    if (cudaMalloc(&v->buffers_[r], config.bufferBytes) != cudaSuccess ||
        cudaMemset(v->buffers_[r], 0, config.bufferBytes) != cudaSuccess ||
        cudaMalloc(&v->state_[r], stateWords * sizeof(uint64_t)) != cudaSuccess ||
        cudaMemset(v->state_[r], 0, stateWords * sizeof(uint64_t)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&v->streams_[r], cudaStreamNonBlocking) != cudaSuccess) {
      return nullptr;
    }
  }
  for (int r = 0; r < nranks; ++r) {
    DeviceComm c{};
    c.rank = r;
    c.nranks = nranks;
    // One GPU shared by every rank: each gets its share, so all blocks of all ranks are resident.
    c.smCount = prop.multiProcessorCount / nranks;
    c.maxResidentBlocks = 2 * prop.multiProcessorCount / nranks;
    c.bufferBytes = config.bufferBytes;
    for (int p = 0; p < nranks; ++p) c.buffers[p] = v->buffers_[p];
    c.layout = layout;
    c.launchState = reinterpret_cast<LaunchState*>(v->state_[r]);
    c.chunkCounters = v->state_[r] + kLaunchWords;
    c.threadBlockFlags = v->state_[r] + kLaunchWords + kChunkCounterCount;
    c.errorRecord = &wordsDev[r].error;
    c.progress = wordsDev[r].progress;
    c.abortFlag = abortFlag;
    c.sweepInterval = sweepInterval;
    v->comms_.push_back(c);
    v->contexts_.emplace_back(new CommContext(nullptr, r, nranks, 0, true));
    v->contexts_.back()->attachPeers(PeerMemory::adopt(c, &v->hostWords_[r]));
  }
  return cudaDeviceSynchronize() == cudaSuccess ? std::move(v) : nullptr;
}

namespace {
std::unique_ptr<VirtualRanks>& cached(int nranks) {
  static std::unique_ptr<VirtualRanks> cache[kMaxPeerRanks + 1];
  return cache[nranks];
}
}  // namespace

VirtualRanks* VirtualRanks::shared(int nranks) {
  if (nranks < 2 || nranks > kMaxPeerRanks) return nullptr;
  if (!cached(nranks)) cached(nranks) = create(nranks);
  return cached(nranks).get();
}

void VirtualRanks::forget(int nranks) {
  if (nranks >= 2 && nranks <= kMaxPeerRanks) cached(nranks).reset();
}

VirtualRanks::~VirtualRanks() {
  contexts_.clear();
  for (char* b : buffers_) cudaFree(b);
  for (uint64_t* s : state_) cudaFree(s);
  for (cudaStream_t s : streams_) {
    if (s) cudaStreamDestroy(s);
  }
  if (hostWords_) cudaFreeHost(hostWords_);
  if (hostAbort_) cudaFreeHost(hostAbort_);
}

bool VirtualRanks::finish(double seconds) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    bool done = true;
    for (cudaStream_t s : streams_) done = done && cudaStreamQuery(s) != cudaErrorNotReady;
    if (done) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      *reinterpret_cast<volatile int*>(hostAbort_) = 1;
      cudaDeviceSynchronize();
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return cudaDeviceSynchronize() == cudaSuccess;
}

bool VirtualRanks::run(const std::function<bool(int rank)>& launch, bool graph, int runs, std::string* error) {
  std::vector<cudaGraphExec_t> execs(n_, nullptr);
  auto destroyGraphs = [&] {
    for (cudaGraphExec_t e : execs) {
      if (e) cudaGraphExecDestroy(e);
    }
  };
  auto fail = [&](const std::string& why) {
    destroyGraphs();
    *error = why + " (" + cudaGetErrorString(cudaGetLastError()) + ")";
    forget(n_);  // may destroy *this: touch nothing after
    return false;
  };
  for (int r = 0; graph && r < n_; ++r) {
    cudaGraph_t g = nullptr;
    if (cudaStreamBeginCapture(streams_[r], cudaStreamCaptureModeThreadLocal) != cudaSuccess) return fail("capture");
    const bool launched = launch(r);
    if (cudaStreamEndCapture(streams_[r], &g) != cudaSuccess || !launched) return fail("capturing the launch");
    const cudaError_t err = cudaGraphInstantiate(&execs[r], g, 0);
    cudaGraphDestroy(g);
    if (err != cudaSuccess) return fail("instantiating the graph");
  }
  for (int run = 0; run < runs; ++run) {
    for (int r = 0; r < n_; ++r) {
      const bool ok = graph ? cudaGraphLaunch(execs[r], streams_[r]) == cudaSuccess
                            : launch(r) && cudaGetLastError() == cudaSuccess;
      if (!ok) return fail("launch of rank " + std::to_string(r));
    }
    if (!finish(20.0)) return fail("hung or failed in run " + std::to_string(run));
  }
  destroyGraphs();
  return true;
}

int VirtualRanks::deviceError() const {
  int code = kDeviceErrorNone;
  for (int r = 0; r < n_; ++r) {
    const int rankCode = *reinterpret_cast<const volatile int32_t*>(&hostWords_[r].error.code);
    if (rankCode > code) code = rankCode;
  }
  return code;
}

void VirtualRanks::clearErrors() {
  std::memset(hostWords_, 0, n_ * sizeof(PeerHostWords));
  *reinterpret_cast<volatile int*>(hostAbort_) = 0;
}

}  // namespace flashccl::testing
