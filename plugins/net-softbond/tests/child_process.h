// A child process for the multi-process tests: argv and extra environment, stdout read through a
// pipe (line by line), stderr kept in a file, and a wait that kills it when it overstays.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace softbond_test {

class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  bool start(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
             std::string* error);
  // The next stdout line starting with `prefix`, or "" if none came within `seconds`.
  std::string waitForLine(const std::string& prefix, double seconds);
  // Waits up to `seconds`; then kills it (SIGKILL) and reports timedOut. exitCode is -signal
  // when a signal ended it.
  struct Exit {
    bool timedOut = false;
    int exitCode = 0;
  };
  Exit wait(double seconds);
  // Non-blocking: true (and *exit) once the child has ended.
  bool ended(Exit* exit);
  std::string output();       // all of stdout read so far
  std::string errorOutput();  // all of stderr
  pid_t pid() const { return pid_; }

 private:
  void readAvailable(int timeoutMs);

  pid_t pid_ = -1;
  int stdoutFd_ = -1;
  std::string stdout_;
  size_t consumed_ = 0;  // stdout bytes already returned by waitForLine
  std::string stderrPath_;
};

}  // namespace softbond_test
