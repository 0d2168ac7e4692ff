#include "subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "sysfs_files.h"

extern char** environ;

namespace flashccl {
namespace doctor {

namespace {

std::string lastNonEmptyLine(const std::string& text) {
  size_t end = text.size();
  while (end > 0) {
    const size_t start = text.rfind('\n', end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    const std::string line = trimmed(text.substr(from, end - from));
    if (!line.empty()) return line;
    if (start == std::string::npos) break;
    end = start;
  }
  return "";
}

}  // namespace

ProgramOutcome runProgram(const std::string& program, const std::vector<std::string>& arguments,
                          const std::string& logPath, int timeoutSeconds) {
  ProgramOutcome outcome;
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, STDIN_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    outcome.error = "cannot start " + program + ": " + std::strerror(rc);
    return outcome;
  }
  outcome.started = true;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      outcome.error = std::string("waitpid: ") + std::strerror(errno);
      return outcome;
    }
    if (std::chrono::steady_clock::now() > deadline && !outcome.timedOut) {
      outcome.timedOut = true;
      kill(pid, SIGTERM);
      std::this_thread::sleep_for(std::chrono::seconds(5));
      kill(pid, SIGKILL);  // a no-op when SIGTERM already ended it
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (WIFEXITED(status)) outcome.exitStatus = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  std::string log;
  readWholeFile(logPath, &log);
  outcome.lastLine = lastNonEmptyLine(log);
  return outcome;
}

}  // namespace doctor
}  // namespace flashccl
