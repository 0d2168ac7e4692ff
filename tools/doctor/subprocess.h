// Runs a program to completion with its output in a log file, under a time limit: how doctor
// runs `flashccl perf` (a process of its own, so a crash or hang there is a verdict here).
#pragma once

#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

struct ProgramOutcome {
  bool started = false;
  int exitStatus = -1;     // when it exited
  int signal = 0;          // when a signal ended it
  bool timedOut = false;   // killed at the time limit
  std::string error;       // when it could not be started
  std::string lastLine;    // the log's last non-empty line (perf's one-line errors)
};

// `arguments` follow the program name. stdout and stderr go to `logPath`.
ProgramOutcome runProgram(const std::string& program, const std::vector<std::string>& arguments,
                          const std::string& logPath, int timeoutSeconds);

}  // namespace doctor
}  // namespace flashccl
