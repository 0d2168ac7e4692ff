#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "child_process.h"
#include "gpu_errors.h"
#include "progress_watchdog.h"
#include "rank_driver.h"
#include "report_sink.h"
#include "report_json.h"
#include "runners.h"

namespace flashccl {
namespace perf {

static_assert(sizeof(ncclUniqueId) == kUniqueIdBytes, "the --uid hex length follows ncclUniqueId");

namespace {

// Time a stopped rank gets between SIGTERM and SIGKILL.
constexpr double kStopGraceSeconds = 5;

}  // namespace

int runProcessesParent(const PerfOptions& options, const RankLayout& layout, RunReport* report,
                       std::string* error) {
  // The unique id's bootstrap root lives in this process, which stays up while the children run.
  ncclUniqueId id;
  PERF_NCCL_CHECK(ncclGetUniqueId(&id), nullptr, "making the NCCL unique id");
  const std::string uid = bytesToHex(&id, sizeof(id));

  const char* tmp = std::getenv("TMPDIR");
  std::string directory = std::string(tmp && *tmp ? tmp : "/tmp") + "/flashccl-perf-XXXXXX";
  if (!mkdtemp(&directory[0])) {
    *error = "cannot create a directory for the results file (" + directory +
             "): " + std::strerror(errno);
    return 1;
  }
  const std::string resultPath = directory + "/rank0.json";
  const std::string executable = ownExecutable();
  if (executable.empty()) {
    *error = "cannot find this program's path (/proc/self/exe) to start the ranks";
    return 1;
  }

  std::vector<ChildProcess> children(static_cast<size_t>(layout.processes));
  std::vector<ChildProcess*> all;
  for (ChildProcess& child : children) all.push_back(&child);
  for (int rank = 0; rank < layout.processes; ++rank) {
    std::vector<std::string> arguments = {executable, "perf"};
    arguments.insert(arguments.end(), options.arguments.begin(), options.arguments.end());
    for (const std::string& extra : {std::string("--child-rank"), std::to_string(rank), std::string("--uid"), uid,
                                     std::string("--result-file"), resultPath})
      arguments.push_back(extra);
    if (!ChildProcess::spawn(arguments, SpawnOptions{}, &children[static_cast<size_t>(rank)], error)) {
      *error = "rank " + std::to_string(rank) + ": " + *error;
      stopChildren(all, kStopGraceSeconds);
      return 1;
    }
  }

  // Wait for all; the first that fails stops the rest (they would wait for it forever).
  int worst = 0;
  for (bool anyRunning = true; anyRunning;) {
    anyRunning = false;
    for (int rank = 0; rank < layout.processes; ++rank) {
      ChildProcess& child = children[static_cast<size_t>(rank)];
      if (!child.running()) continue;
      if (child.poll()) {
        anyRunning = true;
        continue;
      }
      if (child.exitedWith(0) || child.exitedWith(1)) {  // ran to the end (1: wrong results)
        worst = std::max(worst, child.exitedWith(1) ? 1 : 0);
        continue;
      }
      *error = "rank " + std::to_string(rank) + " (pid " + std::to_string(child.pid()) + ") failed with " +
               describeWaitStatus(child.status()) + " (its error is above); stopped the other ranks";
      stopChildren(all, kStopGraceSeconds);
      worst = 1;
    }
    if (anyRunning) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  bool complete = false;
  std::string readError;
  const bool parsed = readReportFile(resultPath, report, &complete, &readError);
  std::remove(resultPath.c_str());
  rmdir(directory.c_str());
  if (!error->empty()) return 1;
  if (!parsed) {
    *error = "rank 0 left no usable results file: " + readError;
    return 1;
  }
  if (!complete) {
    *error = "rank 0's results file is incomplete although every rank finished";
    return 1;
  }
  return worst;
}

int runProcessChild(const PerfOptions& options, const RankLayout& layout, const CollectiveApi& nccl,
                    const CollectiveApi& flashccl) {
  const int rank = options.childRank;
  ncclUniqueId id;
  if (!hexToBytes(options.uniqueIdHex, &id, sizeof(id)))
    throw PerfFailure("rank " + std::to_string(rank) + ": --uid is not a valid unique id");
  LocalRank local;
  local.rank = rank;
  local.device = rank;
  const std::string at = "rank " + std::to_string(rank) + " (GPU " + std::to_string(rank) + ")";
  reportProgress(rank, "creating the communicator (ncclCommInitRank)");
  PERF_CUDA_CHECK(cudaSetDevice(local.device), "selecting the GPU of " + at);
  PERF_NCCL_CHECK(ncclCommInitRank(&local.comm, layout.nranks(), id, rank), nullptr,
                  "creating the communicator of " + at + " through flashccl");

  ConsoleSink console(stdout);
  JsonFileSink resultFile(options.resultFile);
  TeeSink both({&console, &resultFile});
  uint64_t wrong = 0;
  {
    RankDriver driver(options, layout, {local}, nccl, flashccl, rank == 0 ? &both : nullptr);
    driver.run();
    wrong = driver.report().totalWrong();
  }
  reportProgress(rank, "destroying the communicator");
  PERF_NCCL_CHECK(ncclCommDestroy(local.comm), local.comm, "destroying the communicator of " + at);
  finishProgress(rank);
  return wrong ? 1 : 0;
}

}  // namespace perf
}  // namespace flashccl
