// The watchdog's manners inside a process, each mode a short program for trace_lifecycle_test.cc:
//
//   exit-while-watching  exit() while the watchdog is in the middle of asking a peer that never
//                        answers, with a communicator still registered that static destruction
//                        then destroys: must exit 0 at once, without a crash.
//   fork                 after fork(), the child holds none of the parent's side-channel sockets
//                        and starts a watchdog of its own when it traces a communicator.
//   signal               the dump signal writes a dump (and an application's earlier handler for
//                        that signal still runs).
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "loopback_socket.h"
#include "trace/watchdog.h"

namespace {

using flashccl::FlightRecorder;
using flashccl::TraceEndpoint;

class StaticComm final : public flashccl::TracedComm {
 public:
  StaticComm() : recorder_(64) { recorder_.setDeviceProgress(&started, &completed); }
  // Lingers dying, so that a watchdog that still touched it during exit would be caught.
  ~StaticComm() override {
    destroyed_.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  int rank() const override { return 0; }
  int cudaDev() const override { return 0; }
  const std::vector<TraceEndpoint>& endpoints() const override { return endpoints_; }
  FlightRecorder& recorder() override {
    if (destroyed_.load()) {
      std::fprintf(stderr, "the watchdog used a communicator after its destruction\n");
      std::abort();
    }
    return recorder_;
  }
  void abort(ncclResult_t) override {}
  void revoke(ncclResult_t) override {}
  void call() {
    flashccl::TraceCall call;
    call.kind = flashccl::TraceKind::kAllReduce;
    call.count = 8;
    call.launch = ++launches_;
    recorder_.record(call);
  }
  std::vector<TraceEndpoint> endpoints_;
  volatile uint64_t started = 0, completed = 0;

 private:
  FlightRecorder recorder_;
  uint64_t launches_ = 0;
  std::atomic<bool> destroyed_{false};
};

// A peer that accepts connections into its backlog but never answers.
TraceEndpoint deafPeer() {
  TraceEndpoint endpoint;
  flashccl::testing::loopbackSocket(/*listening=*/true, &endpoint);
  return endpoint;
}

int exitWhileWatching() {
  // Constructed before the watchdog exists, so static destruction destroys it after the
  // watchdog's exit hook has run (as the runtime's communicator table would be).
  static StaticComm comm;
  comm.endpoints_ = {flashccl::traceEndpointForNewComm(0), deafPeer()};
  flashccl::registerTracedComm(&comm);
  comm.call();
  comm.started = 1;  // started, never completed: the watchdog asks the deaf peer
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  std::printf("exiting\n");
  std::fflush(stdout);
  std::exit(0);
}

// Whether this process has a socket bound to `port`.
bool holdsPort(uint16_t port) {
  DIR* fds = opendir("/proc/self/fd");
  bool found = false;
  while (dirent* entry = fds ? readdir(fds) : nullptr) {
    const int fd = std::atoi(entry->d_name);
    sockaddr_storage addr;
    socklen_t length = sizeof(addr);
    if (fd <= 2 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) continue;
    if (addr.ss_family == AF_INET && ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port) == port) found = true;
  }
  if (fds) closedir(fds);
  return found;
}

int forkChild() {
  StaticComm* comm = new StaticComm();
  comm->endpoints_ = {flashccl::traceEndpointForNewComm(0)};
  flashccl::registerTracedComm(comm);
  const uint16_t parentPort = comm->endpoints_[0].port;
  std::printf("parent holds its port: %d\n", holdsPort(parentPort) ? 1 : 0);
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    std::printf("child holds the parent's port: %d\n", holdsPort(parentPort) ? 1 : 0);
    StaticComm* own = new StaticComm();
    own->endpoints_ = {flashccl::traceEndpointForNewComm(0)};
    flashccl::registerTracedComm(own);
    std::printf("child has its own side channel: %d\n",
                own->endpoints_[0].port != 0 && own->endpoints_[0].port != parentPort ? 1 : 0);
    std::fflush(stdout);
    flashccl::unregisterTracedComm(own);
    std::_Exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  flashccl::unregisterTracedComm(comm);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

std::atomic<int> gApplicationHandlerRan{0};

int signalDump(const char* dir, int signal) {
  // The application had a handler for the signal before flashccl started.
  struct sigaction own = {};
  own.sa_handler = [](int) { gApplicationHandlerRan.fetch_add(1); };
  sigaction(signal, &own, nullptr);
  StaticComm* comm = new StaticComm();
  comm->endpoints_ = {flashccl::traceEndpointForNewComm(0)};
  flashccl::registerTracedComm(comm);
  for (int i = 0; i < 3; ++i) comm->call();
  raise(signal);
  for (int wait = 0; wait < 500; ++wait) {
    if (DIR* d = opendir(dir)) {
      while (dirent* entry = readdir(d)) {
        if (std::strncmp(entry->d_name, "flashccl-trace.", 15) == 0) {
          std::printf("dump %s\napplication handler ran %d\n", entry->d_name, gApplicationHandlerRan.load());
          closedir(d);
          flashccl::unregisterTracedComm(comm);
          return 0;
        }
      }
      closedir(d);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::printf("no dump\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "exit-while-watching") return exitWhileWatching();
  if (mode == "fork") return forkChild();
  if (mode == "signal" && argc > 3) return signalDump(argv[2], std::atoi(argv[3]));
  std::fprintf(stderr, "usage: trace_lifecycle exit-while-watching | fork | signal DIR SIGNUM\n");
  return 2;
}
