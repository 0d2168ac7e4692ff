// `flashccl tune`: check everything a sweep needs before the first perf run (a GPU, the plugin,
// sizes that split over the ranks, files that can be read and written), so that bad input is one
// line and exit status 2 rather than a failure half an hour in; then run the session.
#include <cuda_runtime.h>
#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "child_process.h"
#include "launched_rank.h"
#include "perf_options.h"
#include "plugin_check.h"
#include "selection_decision.h"
#include "size_list.h"
#include "subcommands.h"
#include "tune_machine.h"
#include "tune_options.h"
#include "tune_session.h"
#include "tuning_file.h"

namespace flashccl {

namespace {

using namespace tune;

int usage(const std::string& message) { return cli::usageError("tune", message, std::cerr); }

// Whether `path` can be written, without leaving a file behind that was not there.
bool writable(const std::string& path, std::string* error) {
  const bool existed = access(path.c_str(), F_OK) == 0;
  FILE* file = std::fopen(path.c_str(), "a");
  if (!file) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fclose(file);
  if (!existed) std::remove(path.c_str());
  return true;
}

bool readText(const std::string& path, std::string* text) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::stringstream content;
  content << file.rdbuf();
  *text = content.str();
  return true;
}

int removeEntry(const char* path, const struct stat*, int, struct FTW*) { return std::remove(path); }

// How many ranks the perf runs will have (to check sizes before running anything).
int rankCount(const TuneOptions& o, const LaunchedRank& launched, int visibleGpus) {
  if (o.launched) return launched.worldSize;
  if (o.processes > 0) return o.processes;
  if (o.threads > 0) return o.threads;
  return visibleGpus;
}

}  // namespace

int tuneMain(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  ParseOutcome parsed = parseTuneOptions(args, std::cout, std::cerr);
  std::cout.flush();
  if (parsed.status >= 0) return parsed.status;
  Session session;
  session.options = parsed.options;
  TuneOptions& o = session.options;

  LaunchedRank launched;
  if (o.launched) {
    std::string problem;
    if (!detectLaunchedRank(processEnvironment(), &launched, &problem))
      return usage("--launched: " + (problem.empty() ? std::string("no launcher's variables are set (RANK and "
                                                                   "WORLD_SIZE, OMPI_COMM_WORLD_RANK and _SIZE, "
                                                                   "PMI_RANK and PMI_SIZE, or SLURM_PROCID and "
                                                                   "SLURM_NTASKS); start it under mpirun, torchrun "
                                                                   "or srun")
                                                     : problem));
  }
  session.readsRecords = !o.launched || launched.rank == 0;

  int visible = 0;
  const cudaError_t countError = cudaGetDeviceCount(&visible);
  if (countError != cudaSuccess || visible == 0) {
    const bool failed = countError != cudaSuccess;
    std::fprintf(stderr, "%s\n",
                 perf::noGpuMessage("tune", failed ? cudaGetErrorName(countError) : "",
                                    failed ? cudaGetErrorString(countError) : "", perf::nvidiaDriverLoads())
                     .c_str());
    return 2;
  }
  const int ranks = rankCount(o, launched, visible);
  session.ranks = ranks;
  if (ranks < 2) return usage("one rank has nothing to tune (NCCL never asks the tuner about one-rank communicators)");
  // flashccl's rows are measured in fp32 and bf16 besides -d (selection_decision.h).
  std::vector<perf::DataType> types = {o.dataType};
  if (!o.flashcclAlgorithms.empty())
    for (const SelectionCondition& condition : selectionConditions()) types.push_back(condition.dataType);
  for (perf::Collective coll : o.collectives)
    for (size_t bytes : tuneSizes(o))
      for (perf::DataType type : types) {
        const std::string problem = perf::sizeProblem(coll, bytes, type, ranks);
        if (!problem.empty()) return usage(problem + " (change -b)");
      }

  if (o.shippedPrograms)
    for (const FlashcclAlgorithm& program : shippedPrograms(ranks)) o.flashcclAlgorithms.push_back(program);
  // Every GPU of the machine, as the library will see it when it loads the table.
  session.machine = thisMachine();
  if (o.install) {
    session.installDirectory = o.installDir.empty() ? defaultInstallDirectory() : o.installDir;
    if (session.installDirectory.empty()) return usage("--install: no HOME or XDG_CACHE_HOME; name a directory");
    std::string problem;
    if (session.readsRecords && (!makeDirectories(session.installDirectory, &problem) ||
                                 !writable(session.installDirectory + "/.flashccl-tune-check", &problem)))
      return usage("--install: " + problem);
  }

  const std::string executable = ownExecutable();
  const char* ncclTunerPlugin = std::getenv("NCCL_TUNER_PLUGIN");
  session.pluginPath = firstExistingFile(
      o.pluginPath.empty() ? pluginSearchPaths(executable, ncclTunerPlugin ? ncclTunerPlugin : "")
                           : std::vector<std::string>{o.pluginPath});
  if (session.pluginPath.empty())
    return usage(o.pluginPath.empty() ? std::string("cannot find ") + kTunerPluginFile +
                                            " beside the flashccl command (lib/ or the build tree's plugins/tuner/); "
                                            "name it with --plugin"
                                      : "--plugin " + o.pluginPath + ": no such file");
  std::string error;
  if (!checkTunerPlugin(session.pluginPath, &error)) return usage(error);

  if (!o.verifyPath.empty()) {
    std::string problem;
    if (!readVerifyTable(o.verifyPath, &session, &problem)) return usage("--verify: " + problem);
  } else if (session.readsRecords) {
    if (!writable(o.outputPath, &error)) return usage("--output: " + error);
    if (!o.jsonPath.empty() && !writable(o.jsonPath, &error)) return usage("--json: " + error);
    if (!o.intoPath.empty()) {
      TuningTable table;
      bool hasSection = false;
      if (!readText(o.intoPath, &session.intoText))
        return usage("--into: cannot read " + o.intoPath + ": " + std::strerror(errno));
      if (!parseTuningText(session.intoText, o.intoPath, &table, &hasSection, &error))
        return usage("--into: " + error);
    }
  }

  const bool keep = !o.workDirectory.empty();
  if (keep) {
    if (!makeDirectories(o.workDirectory, &error)) return usage("--workdir: " + error);
    session.workDirectory = o.workDirectory;
  } else {
    const char* tmp = std::getenv("TMPDIR");
    std::string directory = std::string(tmp && *tmp ? tmp : "/tmp") + "/flashccl-tune-XXXXXX";
    if (!mkdtemp(&directory[0])) {
      std::fprintf(stderr, "flashccl tune: cannot create a work directory (%s): %s\n", directory.c_str(),
                   std::strerror(errno));
      return 1;
    }
    session.workDirectory = directory;
  }

  ChildPerfLauncher launcher(executable);
  ProgressBar progress(stderr, isatty(fileno(stderr)) != 0);
  session.launcher = &launcher;
  session.progress = session.readsRecords ? &progress : nullptr;
  const int status = o.verifyPath.empty() ? runSweepSession(session, std::cout, std::cerr)
                                          : runVerifySession(session, std::cout, std::cerr);
  std::cout.flush();
  if (keep || status != 0) {
    std::fprintf(stderr, "flashccl tune: every run's perf record, output and NCCL log: %s\n",
                 session.workDirectory.c_str());
  } else {
    nftw(session.workDirectory.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
  }
  return status;
}

}  // namespace flashccl
