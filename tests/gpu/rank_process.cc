#include "rank_process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace flashccl_gpu_test {

namespace {

bool readId(const std::string& path, ncclUniqueId* id) {
  std::ifstream in(path, std::ios::binary);
  return in.read(id->internal, sizeof(id->internal)).gcount() == static_cast<std::streamsize>(sizeof(id->internal));
}

}  // namespace

RankProcess* RankProcess::get() {
  static RankProcess* process = [] () -> RankProcess* {
    const char* rank = std::getenv("FLASHCCL_TEST_RANK");
    if (rank == nullptr) return nullptr;
    auto* made = new RankProcess();
    std::string error;
    if (!made->start(&error)) {
      std::fprintf(stderr, "rank %s: start-up failed: %s\n", rank, error.c_str());
      std::exit(3);  // every rank's tests would fail alike; the launcher reports the exit status
    }
    return made;
  }();
  return process;
}

bool RankProcess::start(std::string* error) {
  rank = std::atoi(std::getenv("FLASHCCL_TEST_RANK"));
  const char* n = std::getenv("FLASHCCL_TEST_NRANKS");
  const char* dir = std::getenv("FLASHCCL_TEST_ID_DIR");
  if (n == nullptr || dir == nullptr) return *error = "FLASHCCL_TEST_NRANKS / FLASHCCL_TEST_ID_DIR unset", false;
  nranks = std::atoi(n);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) return *error = "no GPU", false;
  device = rank % devices;  // one GPU: every rank on it; several: one each
  cudaSetDevice(device);
  const std::string idPath = std::string(dir) + "/id";
  ncclUniqueId id;
  if (rank == 0) {
    if (ncclGetUniqueId(&id) != ncclSuccess) return *error = "ncclGetUniqueId", false;
    const std::string tmp = idPath + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(id.internal, sizeof(id.internal));
    if (std::rename(tmp.c_str(), idPath.c_str()) != 0) return *error = "publishing the unique id", false;
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!readId(idPath, &id)) {
      if (std::chrono::steady_clock::now() > deadline) return *error = "no unique id from rank 0", false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  const ncclResult_t init = ncclCommInitRank(&world, nranks, id, rank);
  if (init != ncclSuccess) return *error = std::string("ncclCommInitRank: ") + ncclGetErrorString(init), false;
  const char* reason = nullptr;
  const int state = flashcclCommState(world, &reason);
  std::fprintf(stderr, "rank %d/%d on GPU %d: flashccl state %d%s%s\n", rank, nranks, device, state,
               reason ? ": " : "", reason ? reason : "");
  real.allReduce = reinterpret_cast<decltype(real.allReduce)>(flashcclRealFunction("ncclAllReduce"));
  real.allGather = reinterpret_cast<decltype(real.allGather)>(flashcclRealFunction("ncclAllGather"));
  real.reduceScatter = reinterpret_cast<decltype(real.reduceScatter)>(flashcclRealFunction("ncclReduceScatter"));
  if (!real.allReduce || !real.allGather || !real.reduceScatter) return *error = "the real NCCL's collectives", false;
  if (cudaMalloc(&barrierWord_, sizeof(int)) != cudaSuccess ||
      cudaStreamCreateWithFlags(&barrierStream_, cudaStreamNonBlocking) != cudaSuccess) {
    return *error = "barrier buffers", false;
  }
  return true;
}

ncclComm_t RankProcess::newCommunicator() {
  ncclComm_t comm = nullptr;
  if (ncclCommSplit(world, 0, rank, &comm, nullptr) != ncclSuccess) return nullptr;
  return comm;
}

bool RankProcess::barrier() {
  return real.allReduce(barrierWord_, barrierWord_, 1, ncclInt32, ncclSum, world, barrierStream_) == ncclSuccess &&
         cudaStreamSynchronize(barrierStream_) == cudaSuccess;
}

std::vector<char> copyOut(const void* device, size_t bytes) {
  std::vector<char> host(bytes);
  EXPECT_EQ(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

void copyIn(void* device, const std::vector<char>& host) {
  EXPECT_EQ(cudaMemcpy(device, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
}

}  // namespace flashccl_gpu_test
