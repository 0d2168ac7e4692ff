#include <cuda_runtime.h>
#include <nccl.h>

#include <vector>

#include "gpu_errors.h"
#include "progress_watchdog.h"
#include "rank_driver.h"
#include "report_sink.h"
#include "runners.h"

namespace flashccl {
namespace perf {

RunReport runGrouped(const PerfOptions& options, const RankLayout& layout, const CollectiveApi& nccl,
                     const CollectiveApi& flashccl) {
  const int count = layout.gpusPerThread;
  std::vector<ncclComm_t> comms(static_cast<size_t>(count), nullptr);
  std::vector<int> devices;
  for (int d = 0; d < count; ++d) {
    devices.push_back(d);
    reportProgress(d, "creating the communicators (ncclCommInitAll)");
  }
  PERF_NCCL_CHECK(ncclCommInitAll(comms.data(), count, devices.data()), nullptr,
                  "creating " + std::to_string(count) + " communicators through flashccl's "
                  "ncclCommInitAll");
  std::vector<LocalRank> ranks;
  for (int d = 0; d < count; ++d) ranks.push_back(LocalRank{d, d, comms[static_cast<size_t>(d)]});

  ConsoleSink console(stdout);
  RunReport report;
  {
    RankDriver driver(options, layout, ranks, nccl, flashccl, &console);
    driver.run();
    report = driver.report();
  }
  for (const LocalRank& rank : ranks) {
    reportProgress(rank.rank, "destroying the communicator");
    PERF_NCCL_CHECK(ncclCommDestroy(rank.comm), rank.comm,
                    "destroying the communicator of rank " + std::to_string(rank.rank));
    finishProgress(rank.rank);
  }
  return report;
}

}  // namespace perf
}  // namespace flashccl
