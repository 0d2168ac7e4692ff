// `flashccl perf`: parse, check the machine, pick the runner, write the reports, exit with a status
// that scripts can trust (0 right, 1 wrong or failed, 2 bad usage or no usable GPUs).
#include <cuda_runtime.h>
#include <flashccl/flashccl.h>
#include <nccl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "gpu_errors.h"
#include "launched_rank.h"
#include "nccl_api.h"
#include "perf_options.h"
#include "report_json.h"
#include "progress_watchdog.h"
#include "result_format.h"
#include "run_environment.h"
#include "runners.h"
#include "subcommands.h"

namespace flashccl {
namespace {

using namespace perf;

int usageError(const std::string& message) {
  // Messages that already name the command (noGpuMessage) are printed as they are.
  if (message.compare(0, 13, "flashccl perf") == 0) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return 2;
  }
  return cli::usageError("perf", message, std::cerr);
}

bool writeTextFile(const std::string& path, const std::string& text, std::string* error) {
  FILE* file = std::fopen(path.c_str(), "w");
  if (!file) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !ok) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

// JSON and markdown, from rank 0's report (plots: python -m flashccl plot FILE.json). False (after saying why) if one cannot be written.
bool writeReports(const PerfOptions& options, const RunReport& report) {
  bool ok = true;
  std::string error;
  auto done = [&](const char* what, const std::string& path, bool written) {
    if (written) {
      std::printf("# wrote %s: %s\n", what, path.c_str());
    } else {
      std::fprintf(stderr, "flashccl perf: %s\n", error.c_str());
      ok = false;
    }
  };
  if (!options.jsonPath.empty())
    done("JSON", options.jsonPath, writeReportFile(options.jsonPath, report, true, &error));
  if (!options.markdownPath.empty())
    done("markdown", options.markdownPath,
         writeTextFile(options.markdownPath, formatMarkdown(report), &error));
  std::fflush(stdout);
  return ok;
}

bool wantsFloat8(const PerfOptions& options) {
  for (DataType type : options.dataTypes)
    if (isFloat8Type(type)) return true;
  return false;
}

}  // namespace

int perfMain(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const ParseOutcome parsed = parsePerfOptions(args, std::cout, std::cerr);
  std::cout.flush();
  if (parsed.status >= 0) return parsed.status;
  PerfOptions options = parsed.options;
  const bool child = options.childRank >= 0;
  if (options.launched) {
    std::string problem;
    if (!detectLaunchedRank(processEnvironment(), &options.launch, &problem))
      return usageError("--launched: " + (problem.empty()
                                              ? std::string("no launcher's variables are set (RANK and WORLD_SIZE, "
                                                            "OMPI_COMM_WORLD_RANK and _SIZE, PMI_RANK and PMI_SIZE, or "
                                                            "SLURM_PROCID and SLURM_NTASKS); start it under mpirun, "
                                                            "torchrun or srun")
                                              : problem));
  }

  disableNvlsUnlessSet();  // before anything initialises NCCL

  int visible = 0;
  const cudaError_t countError = cudaGetDeviceCount(&visible);
  if (countError != cudaSuccess)
    return usageError(noGpuMessage("perf", cudaGetErrorName(countError), cudaGetErrorString(countError),
                                   nvidiaDriverLoads()));
  RankLayout layout;
  std::string error;
  if (!resolveRankLayout(options, visible, &layout, &error)) return usageError(error);
  const std::string sizeError = validateSizes(options, layout.nranks());
  if (!sizeError.empty()) return usageError(sizeError);

  CollectiveApi nccl;
  if (!realNcclApi(&nccl, &error)) return usageError(error);
  const CollectiveApi flashccl = flashcclApi();
  int ncclVersion = 0;
  if (ncclGetVersion(&ncclVersion) != ncclSuccess) return usageError("ncclGetVersion failed");
  if (wantsFloat8(options) && ncclVersion < 22400)
    return usageError("f8e4m3 and f8e5m2 need NCCL 2.24 or later; this NCCL is " +
                      ncclVersionText(ncclVersion) + " (drop them from -d)");

  const bool parent = !child && layout.separateProcesses && !layout.launched;
  // A child's failures, hangs included, exit with kChildFailureStatus so the parent stops the others.
  if (!parent) startProgressWatchdog(options.timeoutSeconds, child ? kChildFailureStatus : 1);

  RunReport report;
  int status = 0;
  try {
    if (child) return runProcessChild(options, layout, nccl, flashccl);
    if (layout.launched) {
      if (!runLaunchedRank(options, layout, nccl, flashccl, &report, &error)) return usageError(error);
      // Rank 0 alone holds the algorithm names, writes the records and reports wrong results (every
      // rank knows the count): the others exit 0 once they ran to the end, so that a status of 1
      // from any rank means that it failed (what `flashccl tune --launched` stops on).
      if (options.launch.rank != 0) return 0;
    } else if (parent) {
      status = runProcessesParent(options, layout, &report, &error);
      if (!error.empty()) {
        std::fprintf(stderr, "flashccl perf: %s\n", error.c_str());
        if (report.results.empty()) return 1;
      }
    } else if (layout.initAll) {
      report = runGrouped(options, layout, nccl, flashccl);
    } else {
      report = runThreads(options, layout, nccl, flashccl);
    }
  } catch (const std::exception& failure) {  // PerfFailure, or e.g. std::bad_alloc
    exitWithFailure(failure.what(), child ? kChildFailureStatus : 1);
  }
  if (!writeReports(options, report)) status = 1;
  if (report.totalWrong() > 0) status = 1;
  return status;
}

}  // namespace flashccl
