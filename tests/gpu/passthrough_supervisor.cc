#include "passthrough_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace flashccl_gpu_test::passthrough {
namespace {

volatile sig_atomic_t gInterrupted = 0;

void onInterrupt(int) { gInterrupted = 1; }

// The peers of a failed worker are usually blocked in a collective with it; they report their own
// time-out after the per-case wait, but there is no need to wait that long for it.
constexpr double kGraceAfterFailureS = 3;
// Time a stopped worker gets between SIGTERM and SIGKILL.
constexpr double kTermGraceS = 3;

using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

void installInterruptHandlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupted() { return gInterrupted != 0; }

Supervisor::~Supervisor() {
  stopAll();
  for (Worker& w : workers_)
    if (w.fd >= 0) close(w.fd);
}

std::string Supervisor::start(const std::string& name, const Body& body) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe() for " + name + ": " + std::strerror(errno);
  // Whatever stdio holds would otherwise be written twice, once by the child.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return "fork() for " + name + ": " + std::strerror(errno);
  }
  if (pid == 0) {
    // The worker: default signal handling, die with the supervisor, hold only its own write end
    // (a read end left open elsewhere would keep another worker's pipe from reaching end of file).
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(fds[0]);
    for (const Worker& w : workers_)
      if (w.fd >= 0) close(w.fd);
    ReportChannel channel(fds[1]);
    const int status = body(channel);
    std::fflush(stdout);
    std::fflush(stderr);
    // _exit: the supervisor's copy of static objects is not ours to destroy, and a thread of the
    // CUDA or NCCL runtime may still be running.
    _exit(status);
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  Worker w;
  w.name = name;
  w.process = flashccl::ChildProcess(pid);
  w.fd = fds[0];
  workers_.push_back(w);
  return "";
}

void Supervisor::readAvailable(Worker* w, const std::function<void(const std::string&)>& onLine) {
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(w->fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // EAGAIN: nothing more for now
    if (n == 0) {       // end of file: the worker (and every copy of its write end) is gone
      if (!w->partial.empty()) onLine(w->partial);
      w->partial.clear();
      close(w->fd);
      w->fd = -1;
      return;
    }
    w->partial.append(buffer, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t end; (end = w->partial.find('\n', start)) != std::string::npos; start = end + 1)
      onLine(w->partial.substr(start, end - start));
    w->partial.erase(0, start);
  }
}

void Supervisor::stopAll() {
  std::vector<flashccl::ChildProcess*> processes;
  for (Worker& w : workers_) processes.push_back(&w.process);
  flashccl::stopChildren(processes, kTermGraceS);
}

SupervisedRun Supervisor::wait(double timeoutS, const std::function<void(const std::string&)>& onLine) {
  SupervisedRun run;
  const auto started = Clock::now();
  const auto deadline = after(timeoutS);
  bool stopSoon = false;
  Clock::time_point stopAt;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (Worker& w : workers_) {
      if (w.fd < 0) continue;
      fds.push_back(pollfd{w.fd, POLLIN, 0});
      owners.push_back(&w);
    }
    if (!fds.empty()) poll(fds.data(), fds.size(), 50);
    else std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (Worker* w : owners) readAvailable(w, onLine);

    bool running = false;
    for (Worker& w : workers_) {
      running = w.process.poll() || w.fd >= 0 || running;
      if (!w.process.running() && !w.process.exitedWith(0) && !stopSoon) {
        stopSoon = true;
        stopAt = after(kGraceAfterFailureS);
      }
    }
    if (!running) break;
    if (interrupted()) {
      run.interrupted = true;
      break;
    }
    if (Clock::now() > deadline) {
      run.timedOut = true;
      run.failures.push_back("time-out: still running after " + std::to_string(static_cast<int>(timeoutS)) + " s");
      break;
    }
    if (stopSoon && Clock::now() > stopAt) break;
  }
  stopAll();
  run.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  // Every worker has ended, so its pipe holds its last lines and then end of file. The bound is
  // only for a write end that something unexpected still holds.
  const auto drainUntil = after(1);
  for (Worker& w : workers_) {
    while (w.fd >= 0 && Clock::now() < drainUntil) {
      pollfd p{w.fd, POLLIN, 0};
      poll(&p, 1, 50);
      readAvailable(&w, onLine);
    }
  }
  for (const Worker& w : workers_) {
    if (w.process.exitedWith(0)) continue;
    run.failures.push_back(w.name + " (pid " + std::to_string(w.process.pid()) + "): " +
                           flashccl::describeWaitStatus(w.process.status()) +
                           (w.process.stoppedByUs() ? ", stopped by the supervisor" : ""));
  }
  return run;
}

}  // namespace flashccl_gpu_test::passthrough
