#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

#include "gpu_errors.h"
#include "launched_rank.h"
#include "progress_watchdog.h"
#include "rank_driver.h"
#include "report_sink.h"
#include "run_environment.h"
#include "runners.h"

namespace flashccl {
namespace perf {

bool runLaunchedRank(const PerfOptions& options, const RankLayout& layout, const CollectiveApi& nccl,
                     const CollectiveApi& flashccl, RunReport* report, std::string* error) {
  std::string address;
  if (!rendezvousAddress(processEnvironment(), &address, error)) return false;
  // Before NCCL reads it: with NCCL_COMM_ID set, ncclGetUniqueId encodes that address instead of
  // starting a root in this process, so every rank holds the same id, and rank 0's
  // ncclCommInitRank starts the root there.
  setForNcclUnlessSet("NCCL_COMM_ID", address);

  const int rank = options.launch.rank;
  LocalRank local;
  local.rank = rank;
  local.device = options.launch.localRank;
  const std::string at = "rank " + std::to_string(rank) + " (GPU " + std::to_string(local.device) + ")";
  ncclUniqueId id;
  PERF_NCCL_CHECK(ncclGetUniqueId(&id), nullptr, "making the NCCL unique id from NCCL_COMM_ID=" + address);
  reportProgress(rank, "creating the communicator (ncclCommInitRank, NCCL_COMM_ID=" + address + ")");
  PERF_CUDA_CHECK(cudaSetDevice(local.device), "selecting the GPU of " + at);
  PERF_NCCL_CHECK(ncclCommInitRank(&local.comm, layout.nranks(), id, rank), nullptr,
                  "creating the communicator of " + at + " through flashccl (NCCL_COMM_ID=" + address + ")");

  ConsoleSink console(stdout);
  {
    RankDriver driver(options, layout, {local}, nccl, flashccl, rank == 0 ? &console : nullptr);
    driver.run();
    *report = driver.report();
  }
  reportProgress(rank, "destroying the communicator");
  PERF_NCCL_CHECK(ncclCommDestroy(local.comm), local.comm, "destroying the communicator of " + at);
  finishProgress(rank);
  return true;
}

}  // namespace perf
}  // namespace flashccl
