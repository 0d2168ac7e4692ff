#include "passthrough_workers.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include <cuda_runtime.h>

#include "flashccl/flashccl.h"
#include "passthrough_nccl_api.h"
#include "passthrough_rank.h"

namespace flashccl_gpu_test::passthrough {
namespace {

// Rank 0's id reaches the others within seconds unless rank 0 is stuck; then the supervisor's
// mode time-out ends everything anyway.
constexpr double kIdTimeoutS = 60;

RankJob rankJob(const ModeJob& job, int rank, const ncclUniqueId& id) {
  RankJob r;
  r.rank = rank;
  r.nranks = job.nranks;
  r.id = id;
  r.cases = job.cases;
  r.graph = job.graph;
  r.caseTimeoutS = job.caseTimeoutS;
  r.device = job.oneGpu ? 0 : rank;
  return r;
}

}  // namespace

int probeWorker(ReportChannel& channel) {
  int devices = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess) {
    devices = 0;
    channel.fact("cuda_error", std::string("cudaGetDeviceCount: ") + cudaGetErrorString(counted));
  }
  channel.fact("devices", std::to_string(devices));
  channel.fact("flashccl_version", flashcclVersion());
  const int version = realNcclVersion();
  if (version != 0) channel.fact("nccl_version_code", std::to_string(version));
  const char* path = flashcclRealLibraryPath();
  channel.fact("nccl_library", path && *path ? path : "(not found)");
  return 0;
}

int threadsWorker(const ModeJob& job, ReportChannel& channel) {
  ncclUniqueId id;
  const ncclResult_t made = ncclGetUniqueId(&id);
  if (made != ncclSuccess) {
    channel.rankError(0, std::string("ncclGetUniqueId: ") + ncclGetErrorString(made));
    return 1;
  }
  std::vector<int> status(static_cast<size_t>(job.nranks), 0);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < job.nranks; ++rank)
    threads.emplace_back([&, rank] { status[static_cast<size_t>(rank)] = runRank(rankJob(job, rank, id), channel); });
  for (std::thread& t : threads) t.join();
  return *std::max_element(status.begin(), status.end());
}

int rankProcessWorker(const ModeJob& job, int rank, UniqueIdPipes& ids, ReportChannel& channel) {
  // A host of its own for NCCL, read at its first init in this (forked, CUDA-free) process.
  if (job.oneGpu) setenv("NCCL_HOSTID", ("passthrough-rank-" + std::to_string(rank)).c_str(), 1);
  ncclUniqueId id;
  if (rank == 0) {
    const ncclResult_t made = ncclGetUniqueId(&id);
    if (made != ncclSuccess) {
      channel.rankError(0, std::string("ncclGetUniqueId: ") + ncclGetErrorString(made));
      return 1;
    }
    const std::string error = ids.send(id);
    if (!error.empty()) {
      channel.rankError(0, error);
      return 1;
    }
  } else {
    const std::string error = ids.receive(rank, &id, kIdTimeoutS);
    if (!error.empty()) {
      channel.rankError(rank, error);
      return 1;
    }
  }
  return runRank(rankJob(job, rank, id), channel);
}

}  // namespace flashccl_gpu_test::passthrough
