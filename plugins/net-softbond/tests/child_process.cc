#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace softbond_test {

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stdoutFd_ >= 0) close(stdoutFd_);
  if (!stderrPath_.empty()) unlink(stderrPath_.c_str());
}

bool ChildProcess::start(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env, std::string* error) {
  char path[] = "/tmp/softbond-child-XXXXXX";
  int errFd = mkstemp(path);
  if (errFd < 0) {
    *error = "mkstemp failed";
    return false;
  }
  stderrPath_ = path;
  int out[2];
  if (pipe(out) != 0) {
    *error = "pipe failed";
    return false;
  }
  pid_ = fork();
  if (pid_ < 0) {
    *error = "fork failed";
    return false;
  }
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(errFd, STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    close(errFd);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(errFd);
  stdoutFd_ = out[0];
  fcntl(stdoutFd_, F_SETFL, O_NONBLOCK);
  return true;
}

void ChildProcess::readAvailable(int timeoutMs) {
  if (stdoutFd_ < 0) return;
  pollfd fd{stdoutFd_, POLLIN, 0};
  if (poll(&fd, 1, timeoutMs) <= 0) return;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(stdoutFd_, buffer, sizeof(buffer));
    if (n <= 0) return;
    stdout_.append(buffer, static_cast<size_t>(n));
  }
}

std::string ChildProcess::waitForLine(const std::string& prefix, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    size_t start = consumed_;
    for (size_t end; (end = stdout_.find('\n', start)) != std::string::npos; start = end + 1) {
      std::string line = stdout_.substr(start, end - start);
      if (line.compare(0, prefix.size(), prefix) == 0) {
        consumed_ = end + 1;
        return line;
      }
    }
    if (std::chrono::steady_clock::now() > deadline) return "";
    readAvailable(50);
  }
}

ChildProcess::Exit ChildProcess::wait(double seconds) {
  Exit exit;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  for (;;) {
    readAvailable(20);
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      exit.timedOut = true;
      break;
    }
  }
  pid_ = -1;
  readAvailable(0);
  exit.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return exit;
}

bool ChildProcess::ended(Exit* exit) {
  if (pid_ < 0) return true;
  readAvailable(0);
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
  pid_ = -1;
  exit->timedOut = false;
  exit->exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return true;
}

std::string ChildProcess::output() {
  readAvailable(0);
  return stdout_;
}

std::string ChildProcess::errorOutput() {
  std::ifstream file(stderrPath_);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace softbond_test
