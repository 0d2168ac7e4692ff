// One rank of a fake job for the watchdog's multi-process tests: a real flight recorder, a real
// side channel and the process-wide watchdog, driven by a CPU "collective" instead of a GPU
// kernel. The ranks of a job share a small file-backed "fabric": a call completes on a rank once
// every rank has entered it with the same call (as our kernels do), so a rank that does not come,
// dies, calls something else or stalls leaves the others waiting, as on a GPU.
//
//   fake_rank --dir D --rank R --nranks N --calls K
//             [--scenario healthy|stop|kill|mismatch|stall|hold] [--culprit C --at A]
//             [--pause-every P --pause-ms M] [--child-calls K2]
//
// --child-calls: what an application that recovers does (docs/trace.md, "Recovery"): once the
// watchdog fails the communicator, the survivors (every rank but the culprit) make a child of
// their own (its set-up: fresh endpoints exchanged among them, the child watched by the
// watchdog, a fabric of its own) and run K2 calls on it; the parent is unregistered first, as
// ncclCommShrink's caller destroys it. Prints flashccl_fault_rank's lines ("error seen at T",
// "child first call ok at T", "child done: K2 calls, 0 wrong ..."); --shrink-calls is the same.
//
// stall: the culprit's "kernel" starts and never completes; hold: it never starts (its stream
// is held). It also understands tests/gpu/flashccl_fault_rank's options and prints its lines
// ("rank R pid P ...", "fault at T: ..."), so tests/gpu/fault_check.sh runs on it without a GPU:
// --id-file F (the job's directory is F's), --deadline S (ignored), scenarios sleep = stop,
// other = mismatch.
//
// The watchdog is configured by the environment (FLASHCCL_HANG_TIMEOUT, ...). Exit codes: 0 all
// calls done (the child's too), 3 the watchdog aborted the communicator (without
// --child-calls), 4 the set-up failed. A revoked communicator prints "revoked (reason R)".
//
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "trace/trace_clock.h"
#include "trace/watchdog.h"

namespace {

using flashccl::FlightRecorder;
using flashccl::TraceCall;
using flashccl::TraceEndpoint;
using flashccl::TraceKind;

constexpr int kMaxRanks = 64;

struct Fabric {
  std::atomic<uint64_t> current[kMaxRanks];    // the call each rank last entered
  std::atomic<uint64_t> signature[kMaxRanks];  // what it called there
};

struct Options {
  std::string dir;
  std::string scenario = "healthy";
  int rank = 0, nranks = 2, culprit = -1;
  uint64_t calls = 100, at = 0, pauseEvery = 0, pauseMs = 0, childCalls = 0;
};

class FakeComm final : public flashccl::TracedComm {
 public:
  FakeComm(int rank, std::vector<TraceEndpoint> endpoints, FlightRecorder* recorder)
      : rank_(rank), endpoints_(std::move(endpoints)), recorder_(recorder) {}
  int rank() const override { return rank_; }
  int cudaDev() const override { return rank_; }
  const std::vector<TraceEndpoint>& endpoints() const override { return endpoints_; }
  FlightRecorder& recorder() override { return *recorder_; }
  void abort(ncclResult_t reason) override { aborted.store(static_cast<int>(reason)); }
  void revoke(ncclResult_t reason) override {
    revoked.store(true);
    aborted.store(static_cast<int>(reason));
  }
  std::atomic<int> aborted{-1};
  std::atomic<bool> revoked{false};

 private:
  int rank_;
  std::vector<TraceEndpoint> endpoints_;
  FlightRecorder* recorder_;
};

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--dir") o->dir = value;
    else if (key == "--id-file") o->dir = value.substr(0, value.rfind('/'));
    else if (key == "--deadline") continue;
    else if (key == "--scenario") o->scenario = value == "sleep" ? "stop" : value == "other" ? "mismatch" : value;
    else if (key == "--rank") o->rank = std::atoi(value.c_str());
    else if (key == "--nranks") o->nranks = std::atoi(value.c_str());
    else if (key == "--culprit") o->culprit = std::atoi(value.c_str());
    else if (key == "--calls") o->calls = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "--at") o->at = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "--pause-every") o->pauseEvery = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "--pause-ms") o->pauseMs = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "--child-calls" || key == "--shrink-calls") o->childCalls = std::strtoull(value.c_str(), nullptr, 10);
    else return false;
  }
  return !o->dir.empty() && o->nranks > 0 && o->nranks <= kMaxRanks && o->rank < o->nranks;
}

Fabric* mapFabric(const std::string& dir, const std::string& name) {
  const int fd = open((dir + "/" + name).c_str(), O_RDWR | O_CREAT, 0600);
  if (fd < 0 || ftruncate(fd, sizeof(Fabric)) != 0) return nullptr;
  void* memory = mmap(nullptr, sizeof(Fabric), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return memory == MAP_FAILED ? nullptr : static_cast<Fabric*>(memory);
}

// Every rank's endpoint through files in the job's directory (the set-up exchange's stand-in):
// `prefix` + rank, for `nranks` ranks, this one being `rank`.
bool exchangeEndpoints(const std::string& prefix, int rank, int nranks, const TraceEndpoint& mine,
                       std::vector<TraceEndpoint>* all) {
  const std::string path = prefix + std::to_string(rank);
  {
    std::ofstream out(path + ".tmp", std::ios::binary);
    out.write(reinterpret_cast<const char*>(&mine), sizeof(mine));
  }
  if (std::rename((path + ".tmp").c_str(), path.c_str()) != 0) return false;
  all->assign(nranks, TraceEndpoint());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (int peer = 0; peer < nranks; ++peer) {
    for (;;) {
      std::ifstream in(prefix + std::to_string(peer), std::ios::binary);
      if (in.read(reinterpret_cast<char*>(&(*all)[peer]), sizeof(TraceEndpoint))) break;
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return true;
}

void say(const char* fmt, uint64_t value) {
  std::printf(fmt, static_cast<unsigned long long>(value));
  std::printf("\n");
  std::fflush(stdout);
}

// "fault at <wall-clock seconds>: <what>", as flashccl_fault_rank prints it.
void fault(const char* what, uint64_t call) {
  std::printf("fault at %.3f: ", static_cast<double>(flashccl::wallNs()) / 1e9);
  say(what, call);
}

void sayRevoked(const FakeComm& comm) {
  if (comm.revoked.load()) std::printf("revoked (reason %d)\n", comm.aborted.load());
}

[[noreturn]] void leave(FakeComm& comm, int code) {
  flashccl::unregisterTracedComm(&comm);
  sayRevoked(comm);
  std::printf("exit %d (abort reason %d)\n", code, comm.aborted.load());
  std::fflush(stdout);
  std::_Exit(code);
}

// Waits until `done()`; when the watchdog aborts the communicator first: returns false with
// `recover` (the caller goes on with a child), else leaves with code 3.
template <typename Done>
bool waitFor(FakeComm& comm, Done done, bool recover = false) {
  for (uint64_t spins = 0; !done(); ++spins) {
    if (comm.aborted.load() >= 0) {
      if (recover) return false;
      leave(comm, 3);
    }
    if (spins < 1000) {
      sched_yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  return true;
}

uint64_t signatureOf(const TraceCall& call) { return (static_cast<uint64_t>(call.kind) << 48) ^ call.count; }

// One communicator's calls on `fabric` (ranks 0..nranks-1, this one `rank`), from call 1 to
// `calls`; `culprit` misbehaves as o.scenario says (-1: nobody). Returns the calls completed
// (fewer when the watchdog failed the communicator and `recover`). `child`: the survivors'
// child, which prints when its first call completed.
uint64_t runCalls(const Options& o, FakeComm& comm, FlightRecorder& recorder, Fabric* fabric, int rank,
                  int nranks, int culprit, uint64_t calls, volatile uint64_t& started,
                  volatile uint64_t& completed, bool recover, bool child) {
  const bool isCulprit = rank == culprit;
  for (uint64_t i = 1; i <= calls; ++i) {
    TraceCall call;
    call.kind = TraceKind::kAllReduce;
    call.count = 256u << (i % 5);  // sizes change from call to call
    call.dtype = ncclFloat32;
    call.op = ncclSum;
    call.algorithm = "fake_allreduce";
    call.launch = i;
    if (isCulprit && i == o.at) {
      if (o.scenario == "stop") {
        fault("rank stops calling before call %llu", i);
        waitFor(comm, [] { return false; });
      } else if (o.scenario == "kill") {
        fault("rank killed before call %llu", i);
        raise(SIGKILL);
      } else if (o.scenario == "mismatch") {
        fault("rank calls AllGather at call %llu", i);
        call.kind = TraceKind::kAllGather;
        call.op = -1;
      }
    }
    recorder.record(call);
    if (isCulprit && i == o.at && o.scenario == "hold") {
      fault("stream held: the kernel of call %llu never starts", i);
      waitFor(comm, [] { return false; });
    }
    started = i;
    const uint64_t mine = signatureOf(call);
    fabric->signature[rank].store(mine, std::memory_order_relaxed);
    fabric->current[rank].store(i, std::memory_order_release);
    if (isCulprit && i == o.at && o.scenario == "stall") {
      fault("kernel of call %llu started and never completes", i);
      waitFor(comm, [] { return false; });
    }
    const bool done = waitFor(comm, [&] {
      for (int peer = 0; peer < nranks; ++peer) {
        const uint64_t at = fabric->current[peer].load(std::memory_order_acquire);
        if (at < i) return false;
        if (at == i && fabric->signature[peer].load(std::memory_order_relaxed) != mine) return false;
      }
      return true;
    }, recover);
    if (!done) return i - 1;
    completed = i;
    if (child && i == 1) {
      std::printf("child first call ok at %.3f: AllReduce, rank %d of %d, fake_allreduce, fake\n",
                  static_cast<double>(flashccl::wallNs()) / 1e9, rank, nranks);
      std::fflush(stdout);
    }
    if (isCulprit && o.pauseEvery && i % o.pauseEvery == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(o.pauseMs));
    }
  }
  return calls;
}

// The survivors' child (--child-calls): every rank but the culprit, renumbered in order.
int runChild(const Options& o, FakeComm& parent) {
  flashccl::unregisterTracedComm(&parent);  // the caller of ncclCommShrink then destroys the parent
  sayRevoked(parent);
  std::printf("error seen at %.3f: the watchdog failed the communicator (reason %d)\n",
              static_cast<double>(flashccl::wallNs()) / 1e9, parent.aborted.load());
  std::fflush(stdout);
  const int rank = o.rank - (o.rank > o.culprit ? 1 : 0);
  const int nranks = o.nranks - 1;
  Fabric* fabric = mapFabric(o.dir, "child_fabric");
  std::unique_ptr<FlightRecorder> recorder = flashccl::makeFlightRecorder(rank);
  if (fabric == nullptr || recorder == nullptr) return 4;
  volatile uint64_t started = 0, completed = 0;
  recorder->setDeviceProgress(&started, &completed);
  std::vector<TraceEndpoint> endpoints;
  if (!exchangeEndpoints(o.dir + "/child.endpoint.", rank, nranks, flashccl::traceEndpointForNewComm(rank),
                         &endpoints)) {
    return 4;
  }
  FakeComm child(rank, endpoints, recorder.get());
  flashccl::registerTracedComm(&child);
  runCalls(o, child, *recorder, fabric, rank, nranks, -1, o.childCalls, started, completed, false, true);
  say("child done: %llu calls, 0 wrong (0 elements) (algorithms AllReduce:fake_allreduce)", o.childCalls);
  leave(child, 0);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) {
    std::fprintf(stderr, "usage: fake_rank --dir D --rank R --nranks N --calls K [...]\n");
    return 4;
  }
  Fabric* fabric = mapFabric(o.dir, "fabric");
  std::unique_ptr<FlightRecorder> recorder = flashccl::makeFlightRecorder(o.rank);
  if (fabric == nullptr || recorder == nullptr) return 4;
  volatile uint64_t started = 0, completed = 0;
  recorder->setDeviceProgress(&started, &completed);
  std::vector<TraceEndpoint> endpoints;
  if (!exchangeEndpoints(o.dir + "/endpoint.", o.rank, o.nranks, flashccl::traceEndpointForNewComm(o.rank),
                         &endpoints)) {
    return 4;
  }
  FakeComm comm(o.rank, endpoints, recorder.get());
  flashccl::registerTracedComm(&comm);
  std::printf("rank %d pid %d scenario %s\n", o.rank, static_cast<int>(getpid()), o.scenario.c_str());
  std::fflush(stdout);
  const bool recover = o.childCalls > 0 && o.culprit >= 0 && o.rank != o.culprit;
  if (runCalls(o, comm, *recorder, fabric, o.rank, o.nranks, o.culprit, o.calls, started, completed,
               recover, false) < o.calls) {
    return runChild(o, comm);
  }
  say("done: %llu calls", o.calls);
  leave(comm, 0);
}
