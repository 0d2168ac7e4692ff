// The parent side of the pass-through check: forks the worker processes, reads their report pipes,
// and makes sure nothing hangs. The supervisor itself never calls CUDA or NCCL, so forking is safe
// (a CUDA context does not survive fork) and a worker stuck in a collective cannot stop it: each
// run has a deadline, after which what is left is stopped (SIGTERM, then SIGKILL, by pid).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "child_process.h"
#include "passthrough_channel.h"

namespace flashccl_gpu_test::passthrough {

// SIGINT and SIGTERM (e.g. from `timeout`) make the supervisor stop its workers and report what
// it has, instead of leaving them running on the GPUs. Workers get the default handlers back.
void installInterruptHandlers();
bool interrupted();

struct SupervisedRun {
  bool timedOut = false;
  bool interrupted = false;
  double seconds = 0;  // from wait()'s start until every worker had ended
  std::vector<std::string> failures;  // "rank 1 (pid 1234): exit status 1", time-outs, ...
};

class Supervisor {
 public:
  using Body = std::function<int(ReportChannel&)>;

  Supervisor() = default;
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Forks a worker that runs `body` with a channel to this process and exits with its result.
  // Returns "" or why it could not start.
  std::string start(const std::string& name, const Body& body);

  // Passes every line the workers write to `onLine` until all have ended, `timeoutS` has passed
  // or an interrupt came; then stops whatever still runs. When one worker fails, the others get a
  // few seconds to report (they are probably waiting for it) and are then stopped too.
  SupervisedRun wait(double timeoutS, const std::function<void(const std::string&)>& onLine);

 private:
  struct Worker {
    std::string name;
    flashccl::ChildProcess process;
    int fd = -1;           // read end of its report pipe; -1 once at end of file
    std::string partial;   // a line not yet ended
  };
  void readAvailable(Worker* w, const std::function<void(const std::string&)>& onLine);
  void stopAll();

  std::vector<Worker> workers_;
};

}  // namespace flashccl_gpu_test::passthrough
