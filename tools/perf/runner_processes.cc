#include <cuda_runtime.h>
#include <nccl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "gpu_errors.h"
#include "progress_watchdog.h"
#include "rank_driver.h"
#include "report_sink.h"
#include "result_file.h"
#include "runners.h"

extern char** environ;

namespace flashccl {
namespace perf {

static_assert(sizeof(ncclUniqueId) == kUniqueIdBytes, "the --uid hex length follows ncclUniqueId");

namespace {

std::string ownExecutable() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return "";
  path[length] = '\0';
  return path;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

struct Child {
  int rank;
  pid_t pid;
  bool running;
  int status;
};

// Ends every child still running: SIGTERM, a grace period, then SIGKILL. Only our own children, by pid.
void stopChildren(std::vector<Child>* children) {
  for (Child& child : *children)
    if (child.running) kill(child.pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    bool anyRunning = false;
    for (Child& child : *children) {
      if (!child.running) continue;
      if (waitpid(child.pid, &child.status, WNOHANG) == child.pid) child.running = false;
      else anyRunning = true;
    }
    if (!anyRunning) return;
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (Child& child : *children) {
    if (!child.running) continue;
    kill(child.pid, SIGKILL);
    waitpid(child.pid, &child.status, 0);
    child.running = false;
  }
}

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
  const std::string resultPath = directory + "/rank0.results";
  const std::string executable = ownExecutable();
  if (executable.empty()) {
    *error = "cannot find this program's path (/proc/self/exe) to start the ranks";
    return 1;
  }

  std::vector<Child> children;
  for (int rank = 0; rank < layout.processes; ++rank) {
    std::vector<std::string> arguments = {executable, "perf"};
    arguments.insert(arguments.end(), options.arguments.begin(), options.arguments.end());
    for (const std::string& extra : {std::string("--child-rank"), std::to_string(rank),
                                     std::string("--uid"), uid, std::string("--result-file"),
                                     resultPath})
      arguments.push_back(extra);
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(&argument[0]);
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, executable.c_str(), nullptr, nullptr, argv.data(), environ);
    if (spawned != 0) {
      *error = "cannot start rank " + std::to_string(rank) + " (" + executable +
               "): " + std::strerror(spawned);
      stopChildren(&children);
      return 1;
    }
    children.push_back(Child{rank, pid, true, 0});
  }

  // Wait for all; the first that fails stops the rest (they would wait for it forever).
  int worst = 0;
  for (;;) {
    bool anyRunning = false;
    for (Child& child : children) {
      if (!child.running) continue;
      const pid_t done = waitpid(child.pid, &child.status, WNOHANG);
      if (done == 0) {
        anyRunning = true;
        continue;
      }
      child.running = false;
      const bool finished = WIFEXITED(child.status) &&
                            (WEXITSTATUS(child.status) == 0 || WEXITSTATUS(child.status) == 1);
      if (finished) {
        worst = std::max(worst, WEXITSTATUS(child.status));
        continue;
      }
      *error = "rank " + std::to_string(child.rank) + " (pid " + std::to_string(child.pid) +
               ") failed with " + describeStatus(child.status) +
               " (its error is above); stopped the other ranks";
      stopChildren(&children);
      worst = 1;
    }
    if (!anyRunning) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  std::ifstream file(resultPath);
  const bool readable = static_cast<bool>(file);
  std::stringstream text;
  if (readable) text << file.rdbuf();
  bool complete = false;
  std::string parseError;
  const bool parsed = readable && parseResultFile(text.str(), report, &complete, &parseError);
  std::remove(resultPath.c_str());
  rmdir(directory.c_str());
  if (!error->empty()) return 1;
  if (!parsed) {
    *error = "rank 0 left no usable results file (" + resultPath + "): " +
             (parseError.empty() ? "missing" : parseError);
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
  ResultFileSink resultFile;
  TeeSink both({&console, &resultFile});
  if (rank == 0) {
    std::string error;
    if (!resultFile.open(options.resultFile, &error)) throw PerfFailure(error);
  }
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
