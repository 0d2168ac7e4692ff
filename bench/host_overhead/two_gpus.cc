#include "two_gpus.h"

#include <cstdio>

#include "flashccl/flashccl.h"
#include "one_gpu.h"

namespace flashccl_bench {

namespace {

std::string cudaProblem(const char* what, cudaError_t err) {
  return std::string(what) + ": " + cudaGetErrorString(err);
}

std::string ncclProblem(const char* what, ncclResult_t result) {
  return std::string(what) + ": " + ncclGetErrorString(result);
}

}  // namespace

TwoGpus& TwoGpus::get() {
  // Never destroyed (see the header): a leaked object, not a static one, so that nothing is torn
  // down while the CUDA runtime itself is shutting down.
  static TwoGpus& gpus = *new TwoGpus();
  return gpus;
}

bool& TwoGpus::virtualRanksWanted() {
  static bool wanted = false;
  return wanted;
}

std::string TwoGpus::selectionSource() const {
  return oneGpu_ ? oneGpu_->selectionSource() : std::string();
}

TwoGpus::TwoGpus() {
  flashcclApi = CollectiveApi{ncclGroupStart, ncclAllReduce, ncclGroupEnd};
  realApi = CollectiveApi{
      reinterpret_cast<ncclResult_t (*)()>(flashcclRealFunction("ncclGroupStart")),
      reinterpret_cast<decltype(CollectiveApi::allReduce)>(flashcclRealFunction("ncclAllReduce")),
      reinterpret_cast<ncclResult_t (*)()>(flashcclRealFunction("ncclGroupEnd"))};

  if (virtualRanksWanted()) {
    makeVirtualRanks();
    return;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < kRanks) {
    cudaGetLastError();
    oursProblem_ = "needs " + std::to_string(kRanks) + " GPUs; found " + std::to_string(devices);
    ncclOnlyProblem_ = oursProblem_;
    return;
  }
  makeStreamsAndBuffers();
  if (!oursProblem_.empty()) {
    ncclOnlyProblem_ = oursProblem_;
    return;
  }
  makeOurCommunicators();
  makeNcclOnlyCommunicators();
  for (int rank = 0; rank < kRanks; ++rank) {
    const char* reason = nullptr;
    const int state = ours[rank].comm ? flashcclCommState(ours[rank].comm, &reason) : -2;
    std::fprintf(stderr, "flashccl_host_overhead: rank %d: flashccl state %d%s%s\n", rank, state,
                 reason ? ": " : "", reason ? reason : "");
  }
}

void TwoGpus::makeVirtualRanks() {
  virtualRanks_ = true;
  ncclOnlyProblem_ = "needs real NCCL communicators, which NCCL will not make for 2 ranks on one "
                     "GPU; not run with virtual ranks";
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    cudaGetLastError();
    oursProblem_ = "virtual ranks need a GPU; found none";
    return;
  }
  if (cudaSetDevice(0) != cudaSuccess) {
    oursProblem_ = cudaProblem("cudaSetDevice(0)", cudaGetLastError());
    return;
  }
  oneGpu_ = OneGpuRanks::create(kMaxBytes, &oursProblem_);
  if (oneGpu_ == nullptr) return;
  for (int rank = 0; rank < kRanks; ++rank) {
    ours[rank] = oneGpu_->slot(rank);
    streams[rank] = ours[rank].stream;
  }
  std::fprintf(stderr, "flashccl_host_overhead: %d virtual ranks on device 0; selection table: %s\n",
               kRanks, oneGpu_->selectionSource().c_str());
}

void TwoGpus::makeStreamsAndBuffers() {
  for (int rank = 0; rank < kRanks; ++rank) {
    cudaError_t err = cudaSetDevice(rank);
    if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&streams[rank], cudaStreamNonBlocking);
    void* send = nullptr;
    void* recv = nullptr;
    if (err == cudaSuccess) err = cudaMalloc(&send, kMaxBytes);
    if (err == cudaSuccess) err = cudaMalloc(&recv, kMaxBytes);
    // Zeros: any number of sums stays finite, so no kernel ever works on NaNs or infinities.
    if (err == cudaSuccess) err = cudaMemset(send, 0, kMaxBytes);
    if (err == cudaSuccess) err = cudaMemset(recv, 0, kMaxBytes);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      oursProblem_ = cudaProblem("streams and buffers", err);
      return;
    }
    for (RankSlot* slot : {&ours[rank], &ncclOnly[rank]}) {
      slot->stream = streams[rank];
      slot->send = static_cast<const float*>(send);
      slot->recv = static_cast<float*>(recv);
    }
  }
}

void TwoGpus::makeOurCommunicators() {
  std::array<ncclComm_t, kRanks> comms{};
  const int devices[kRanks] = {0, 1};
  const ncclResult_t result = ncclCommInitAll(comms.data(), kRanks, devices);
  if (result != ncclSuccess) {
    oursProblem_ = ncclProblem("ncclCommInitAll through flashccl", result);
    return;
  }
  for (int rank = 0; rank < kRanks; ++rank) {
    ours[rank].comm = comms[rank];
    const char* reason = nullptr;
    if (flashcclCommState(comms[rank], &reason) != 1) {
      oursProblem_ = "flashccl is not active on rank " + std::to_string(rank) +
                     (reason ? std::string(": ") + reason : std::string());
    }
  }
}

void TwoGpus::makeNcclOnlyCommunicators() {
  using CommInitAllFn = ncclResult_t (*)(ncclComm_t*, int, const int*);
  auto realInitAll = reinterpret_cast<CommInitAllFn>(flashcclRealFunction("ncclCommInitAll"));
  if (realInitAll == nullptr || realApi.groupStart == nullptr || realApi.allReduce == nullptr ||
      realApi.groupEnd == nullptr) {
    ncclOnlyProblem_ = "the real NCCL's functions are not available (flashcclRealFunction)";
    return;
  }
  std::array<ncclComm_t, kRanks> comms{};
  const int devices[kRanks] = {0, 1};
  const ncclResult_t result = realInitAll(comms.data(), kRanks, devices);
  if (result != ncclSuccess) {
    ncclOnlyProblem_ = ncclProblem("the real NCCL's ncclCommInitAll", result);
    return;
  }
  for (int rank = 0; rank < kRanks; ++rank) {
    ncclOnly[rank].comm = comms[rank];
    // A communicator flashccl knows would not measure pass-through at all.
    if (flashcclCommState(comms[rank], nullptr) != -2) {
      ncclOnlyProblem_ = "flashccl knows the communicators the real NCCL made";
    }
  }
}

}  // namespace flashccl_bench
