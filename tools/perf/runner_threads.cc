#include <cuda_runtime.h>
#include <nccl.h>

#include <memory>
#include <thread>
#include <vector>

#include "gpu_errors.h"
#include "progress_watchdog.h"
#include "rank_driver.h"
#include "report_sink.h"
#include "runners.h"

namespace flashccl {
namespace perf {

RunReport runThreads(const PerfOptions& options, const RankLayout& layout, const CollectiveApi& nccl,
                     const CollectiveApi& flashccl) {
  ncclUniqueId id;
  PERF_NCCL_CHECK(ncclGetUniqueId(&id), nullptr, "making the NCCL unique id");
  const int nranks = layout.nranks();
  const int perThread = layout.gpusPerThread;
  ConsoleSink console(stdout);
  RunReport report;

  auto driveRanks = [&](int thread) {
    try {
      std::vector<LocalRank> ranks;
      for (int g = 0; g < perThread; ++g) {
        LocalRank rank;
        rank.rank = thread * perThread + g;
        rank.device = rank.rank;  // one host: rank r uses visible GPU r
        ranks.push_back(rank);
        reportProgress(rank.rank, "creating the communicator (ncclCommInitRank)");
      }
      if (perThread > 1) PERF_NCCL_CHECK(ncclGroupStart(), nullptr, "ncclGroupStart (init)");
      for (LocalRank& rank : ranks) {
        const std::string at = "rank " + std::to_string(rank.rank) + " (GPU " +
                               std::to_string(rank.device) + ")";
        PERF_CUDA_CHECK(cudaSetDevice(rank.device), "selecting the GPU of " + at);
        PERF_NCCL_CHECK(ncclCommInitRank(&rank.comm, nranks, id, rank.rank), nullptr,
                        "creating the communicator of " + at + " through flashccl");
      }
      if (perThread > 1)
        PERF_NCCL_CHECK(ncclGroupEnd(), nullptr, "creating the communicators (ncclGroupEnd)");
      {
        RankDriver driver(options, layout, ranks, nccl, flashccl, thread == 0 ? &console : nullptr);
        driver.run();
        if (thread == 0) report = driver.report();
      }
      for (LocalRank& rank : ranks) {
        reportProgress(rank.rank, "destroying the communicator");
        PERF_NCCL_CHECK(ncclCommDestroy(rank.comm), rank.comm,
                        "destroying the communicator of rank " + std::to_string(rank.rank));
        finishProgress(rank.rank);
      }
    } catch (const std::exception& failure) {  // PerfFailure, or e.g. std::bad_alloc
      exitWithFailure(failure.what(), 1);
    }
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < layout.threads; ++t) threads.emplace_back(driveRanks, t);
  for (std::thread& thread : threads) thread.join();
  return report;
}

}  // namespace perf
}  // namespace flashccl
