// Child processes we start and must not leave behind: start (posix_spawn) or adopt (fork), reap
// without blocking, describe how one ended, and stop a set of them (SIGTERM, a grace period,
// SIGKILL; only our own children, by pid). Used by `flashccl perf --processes`, the pass-through
// check and the unit tests' helper runs.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace flashccl {

// "exit status 3", "signal 9 (Killed)".
std::string describeWaitStatus(int status);

struct SpawnOptions {
  // The child's whole environment; empty: this process's.
  std::vector<std::string> environment;
  int stdoutFd = -1;  // where the child's stdout goes; -1: ours
  int stderrFd = -1;
};

class ChildProcess {
 public:
  ChildProcess() = default;
  explicit ChildProcess(pid_t pid) : pid_(pid), running_(pid > 0) {}  // adopts a fork()ed child

  // Starts argv[0] (a path) with argv. False with *error when it cannot be started.
  static bool spawn(const std::vector<std::string>& argv, const SpawnOptions& options, ChildProcess* child,
                    std::string* error);

  pid_t pid() const { return pid_; }
  bool running() const { return running_; }
  int status() const { return status_; }  // the wait status, once !running()
  bool exitedWith(int code) const;        // ended normally with `code`
  bool stoppedByUs() const { return stoppedByUs_; }

  // Collects the exit status if it has ended; never blocks. Returns running().
  bool poll();
  void waitForExit();
  // SIGTERM, remembered so a report can say the child did not end on its own.
  void terminate();
  void kill();

 private:
  pid_t pid_ = -1;
  bool running_ = false;
  int status_ = 0;
  bool stoppedByUs_ = false;
};

// This program's own path (/proc/self/exe resolved), to start copies of itself; "" if unknown.
std::string ownExecutable();

// Stops every child still running: SIGTERM, up to `graceSeconds` for them to end, then SIGKILL.
// Returns once all have been reaped.
void stopChildren(const std::vector<ChildProcess*>& children, double graceSeconds);

// This process's environment without the variables whose names start with one of `dropPrefixes`
// (e.g. "NCCL_"), plus `set` (which replaces a variable of the same name).
std::vector<std::string> environmentWith(const std::vector<std::string>& dropPrefixes,
                                         const std::map<std::string, std::string>& set);

}  // namespace flashccl
