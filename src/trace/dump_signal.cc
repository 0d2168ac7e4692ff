#include "trace/dump_signal.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace flashccl {

namespace {

std::atomic<bool> gDumpRequested{false};
std::atomic<int> gWakeFd{-1};
struct sigaction gPrevious;

void onDumpSignal(int signal, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  gDumpRequested.store(true, std::memory_order_release);
  const int fd = gWakeFd.load(std::memory_order_acquire);
  if (fd >= 0) {
    const char wake = 'd';
    if (write(fd, &wake, 1) < 0) {
      // Full pipe: the watchdog is awake already.
    }
  }
  // The application's own handler, if it had one. Its default action (terminate, for SIGUSR1)
  // is exactly what asking for a dump must not do, so SIG_DFL and SIG_IGN are not chained.
  if (gPrevious.sa_flags & SA_SIGINFO) {
    if (gPrevious.sa_sigaction != nullptr) gPrevious.sa_sigaction(signal, info, context);
  } else if (gPrevious.sa_handler != SIG_DFL && gPrevious.sa_handler != SIG_IGN &&
             gPrevious.sa_handler != nullptr) {
    gPrevious.sa_handler(signal);
  }
  errno = savedErrno;
}

}  // namespace

bool installDumpSignal(int signal, int wakeFd) {
  gWakeFd.store(wakeFd, std::memory_order_release);
  // Installed already (a second watchdog in one process, as in tests): chaining to ourselves
  // would recurse.
  struct sigaction current = {};
  if (sigaction(signal, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
      current.sa_sigaction == onDumpSignal) {
    return true;
  }
  struct sigaction action = {};
  action.sa_sigaction = onDumpSignal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  return sigaction(signal, &action, &gPrevious) == 0;
}

bool takeDumpRequest() { return gDumpRequested.exchange(false, std::memory_order_acq_rel); }

void detachDumpSignal() { gWakeFd.store(-1, std::memory_order_release); }

}  // namespace flashccl
