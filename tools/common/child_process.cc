#include "child_process.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace flashccl {

std::string describeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

bool ChildProcess::spawn(const std::vector<std::string>& argv, const SpawnOptions& options, ChildProcess* child,
                         std::string* error) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : options.environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.stdoutFd >= 0) posix_spawn_file_actions_adddup2(&actions, options.stdoutFd, 1);
  if (options.stderrFd >= 0) posix_spawn_file_actions_adddup2(&actions, options.stderrFd, 2);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(),
                                  options.environment.empty() ? environ : envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    if (error) *error = "cannot start " + argv[0] + ": " + std::strerror(spawned);
    return false;
  }
  *child = ChildProcess(pid);
  return true;
}

bool ChildProcess::exitedWith(int code) const {
  return !running_ && pid_ > 0 && WIFEXITED(status_) && WEXITSTATUS(status_) == code;
}

bool ChildProcess::poll() {
  if (running_ && waitpid(pid_, &status_, WNOHANG) == pid_) running_ = false;
  return running_;
}

void ChildProcess::waitForExit() {
  if (running_ && waitpid(pid_, &status_, 0) == pid_) running_ = false;
}

void ChildProcess::terminate() {
  if (!running_) return;
  ::kill(pid_, SIGTERM);
  stoppedByUs_ = true;
}

void ChildProcess::kill() {
  if (!running_) return;
  ::kill(pid_, SIGKILL);
  stoppedByUs_ = true;
}

void stopChildren(const std::vector<ChildProcess*>& children, double graceSeconds) {
  for (ChildProcess* child : children) child->terminate();
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(graceSeconds));
  for (;;) {
    bool anyRunning = false;
    for (ChildProcess* child : children) anyRunning = child->poll() || anyRunning;
    if (!anyRunning || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (ChildProcess* child : children) {
    child->kill();
    child->waitForExit();
  }
}

std::vector<std::string> environmentWith(const std::vector<std::string>& dropPrefixes,
                                         const std::map<std::string, std::string>& set) {
  std::vector<std::string> result;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool drop = set.count(name) > 0;
    for (const std::string& prefix : dropPrefixes) drop = drop || entry.compare(0, prefix.size(), prefix) == 0;
    if (!drop) result.push_back(entry);
  }
  for (const auto& kv : set) result.push_back(kv.first + "=" + kv.second);
  return result;
}

std::string ownExecutable() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return "";
  path[length] = '\0';
  return path;
}

}  // namespace flashccl
