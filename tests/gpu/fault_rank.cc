// One rank of a job that goes wrong on cue, for issue 14's GPU checks (tests/gpu/fault_check.sh):
// every rank on GPU 0 in its own process (each with its own NCCL_HOSTID), AllReduce after
// AllReduce of changing sizes, each waited for the way PyTorch waits: polling the stream and
// ncclCommGetAsyncError. The culprit sleeps, dies, calls AllGather, or has its stream held
// (fault_plan.h). A rank that sees an asynchronous error aborts its communicator and exits 1;
// with --shrink-calls K (issue 27) it recovers instead: ncclCommShrink(NCCL_SHRINK_ABORT) without
// the culprit, K checked AllReduce/AllGather/ReduceScatter calls on the child, then the parent
// destroyed (it must not hang) and the child.
//
// Lines it prints (the script reads them): "rank R pid P scenario S", "fault at T: ...",
// "async error E (name) at call I after W s", "done". T is wall-clock seconds since the epoch.
// Recovery adds "error seen at T: ...", "shrink returned R (name) at T", "child first call ok at
// T: ...", "child done: K calls, W wrong (algorithms ...)", "parent destroyed in S s".
// Exit codes: 0 done, 1 error (no recovery asked), 3 no error before --deadline, 4 set-up, 5 the
// shrink or a child call failed, 6 the parent's destroy hung, 7 wrong results on the child.
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "fault_hold_kernel.h"
#include "fault_plan.h"

namespace fault = flashccl_gpu_test::fault;

namespace {

double wallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

template <typename... Args>
void say(const char* fmt, Args... args) {
  std::printf(fmt, args...);
  std::printf("\n");
  std::fflush(stdout);
}

bool shareUniqueId(const fault::FaultPlan& plan, ncclUniqueId* id) {
  if (plan.rank == 0) {
    if (ncclGetUniqueId(id) != ncclSuccess) return false;
    const std::string tmp = plan.idFile + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(reinterpret_cast<const char*>(id), sizeof(*id));
    return std::rename(tmp.c_str(), plan.idFile.c_str()) == 0;
  }
  for (int tries = 0; tries < 6000; ++tries) {
    std::ifstream in(plan.idFile, std::ios::binary);
    if (in.read(reinterpret_cast<char*>(id), sizeof(*id))) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

enum class Wait { kDone, kFailed, kDeadline };

// Waits for the call like PyTorch's watchdog: stream done, or the communicator's async error;
// with plan.appTimeoutS, the application's own timeout revokes the communicator (the call has
// failed then). A failure is left to the caller: abort, or recover.
Wait waitForCall(ncclComm_t comm, cudaStream_t stream, uint64_t call, const fault::FaultPlan& plan,
                 double deadlineS) {
  const double start = wallSeconds();
  for (;;) {
    const cudaError_t done = cudaStreamQuery(stream);
    if (done != cudaSuccess && done != cudaErrorNotReady) {
      say("cuda error %d (%s) at call %llu", static_cast<int>(done), cudaGetErrorString(done),
          static_cast<unsigned long long>(call));
      return Wait::kFailed;
    }
    // The error first: an aborted kernel ends too, and its call must not pass for done.
    ncclResult_t async = ncclSuccess;
    ncclCommGetAsyncError(comm, &async);
    if (async != ncclSuccess && async != ncclInProgress) {
      say("async error %d (%s) at call %llu after %.1f s", static_cast<int>(async),
          ncclGetErrorString(async), static_cast<unsigned long long>(call), wallSeconds() - start);
      return Wait::kFailed;
    }
    if (done == cudaSuccess) return Wait::kDone;
    if (plan.appTimeoutS > 0 && wallSeconds() - start > plan.appTimeoutS) {
      const ncclResult_t revoked = ncclCommRevoke(comm, NCCL_REVOKE_DEFAULT);
      say("application timeout (%.1f s) at call %llu: ncclCommRevoke returned %d (%s)", plan.appTimeoutS,
          static_cast<unsigned long long>(call), static_cast<int>(revoked), ncclGetErrorString(revoked));
      return Wait::kFailed;
    }
    if (wallSeconds() - start > deadlineS) {
      say("no error after %.0f s in call %llu", deadlineS, static_cast<unsigned long long>(call));
      return Wait::kDeadline;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// flashccl's own API when it is loaded (LD_PRELOAD), else nothing: the check runs on plain NCCL too.
const char* lastAlgorithm(ncclComm_t comm) {
  using Fn = const char* (*)(ncclComm_t);
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "flashcclLastAlgorithm"));
  const char* name = fn ? fn(comm) : nullptr;
  return name ? name : "(not flashccl)";
}

std::string commState(ncclComm_t comm) {
  using Fn = int (*)(ncclComm_t, const char**);
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "flashcclCommState"));
  if (!fn) return "not flashccl";
  const char* reason = nullptr;
  const int state = fn(comm, &reason);
  if (state == 1) return "flashccl ready";
  if (state == -1) return std::string("flashccl disabled: ") + (reason ? reason : "?");
  return state == 0 ? "flashccl pending" : "unknown to flashccl";
}

// The survivors' part of the recovery: shrink without the culprit, checked calls on the child,
// then the parent destroyed within a bound and the child.
int recover(const fault::FaultPlan& plan, ncclComm_t parent, cudaStream_t stream, float* send, float* recv,
            size_t maxElements) {
  int exclude[2] = {std::min(plan.culprit, plan.alsoExclude), std::max(plan.culprit, plan.alsoExclude)};
  const int excluded = plan.alsoExclude >= 0 ? 2 : 1;
  ncclComm_t child = nullptr;
  const ncclResult_t shrunk = ncclCommShrink(parent, plan.alsoExclude >= 0 ? exclude : &exclude[1], excluded,
                                             &child, nullptr, NCCL_SHRINK_ABORT);
  say("shrink returned %d (%s) at %.3f", static_cast<int>(shrunk), ncclGetErrorString(shrunk), wallSeconds());
  if (shrunk != ncclSuccess || child == nullptr) return 5;
  int rank = -1, nranks = 0;
  if (ncclCommUserRank(child, &rank) != ncclSuccess || ncclCommCount(child, &nranks) != ncclSuccess ||
      nranks != plan.nranks - excluded) {
    say("child: rank %d of %d, expected %d ranks", rank, nranks, plan.nranks - excluded);
    return 5;
  }
  // The aborted call's kernel has left the parent's stream (our kernels poll the abort flag).
  const double drainStart = wallSeconds();
  while (cudaStreamQuery(stream) == cudaErrorNotReady) {
    if (wallSeconds() - drainStart > 10) {
      say("the parent's stream is still busy 10 s after the shrink");
      return 5;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  cudaGetLastError();
  std::vector<float> host(maxElements), result(maxElements);
  std::set<std::string> algorithms;
  uint64_t wrongCalls = 0, wrongElements = 0;
  for (uint64_t call = 1; call <= plan.shrinkCalls; ++call) {
    const fault::CheckedColl coll = fault::checkedCollAt(call);
    const size_t count = fault::countAt(call);
    const size_t sent = coll == fault::CheckedColl::kReduceScatter ? count * nranks : count;
    const size_t received = coll == fault::CheckedColl::kAllGather ? count * nranks : count;
    for (size_t i = 0; i < sent; ++i) host[i] = fault::sendValue(rank, call, i);
    if (cudaMemcpyAsync(send, host.data(), sent * sizeof(float), cudaMemcpyHostToDevice, stream) != cudaSuccess ||
        cudaMemsetAsync(recv, 0xff, received * sizeof(float), stream) != cudaSuccess) {
      say("child call %llu: cuda error", static_cast<unsigned long long>(call));
      return 5;
    }
    ncclResult_t result_code = ncclSuccess;
    switch (coll) {
      case fault::CheckedColl::kAllReduce:
        result_code = ncclAllReduce(send, recv, count, ncclFloat, ncclSum, child, stream);
        break;
      case fault::CheckedColl::kAllGather:
        result_code = ncclAllGather(send, recv, count, ncclFloat, child, stream);
        break;
      case fault::CheckedColl::kReduceScatter:
        result_code = ncclReduceScatter(send, recv, count, ncclFloat, ncclSum, child, stream);
        break;
    }
    if (result_code != ncclSuccess ||
        waitForCall(child, stream, call, fault::FaultPlan(), 60) != Wait::kDone ||
        cudaMemcpy(result.data(), recv, received * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
      say("child call %llu (%s) failed: %d (%s)", static_cast<unsigned long long>(call),
          fault::checkedCollName(coll), static_cast<int>(result_code), ncclGetErrorString(result_code));
      return 5;
    }
    uint64_t wrong = 0;
    for (size_t i = 0; i < received; ++i) {
      if (result[i] != fault::expectedValue(coll, rank, nranks, call, count, i)) ++wrong;
    }
    wrongElements += wrong;
    wrongCalls += wrong ? 1 : 0;
    algorithms.insert(std::string(fault::checkedCollName(coll)) + ":" + lastAlgorithm(child));
    if (call == 1) {
      say("child first call ok at %.3f: %s, rank %d of %d, %s, %s", wallSeconds(), fault::checkedCollName(coll),
          rank, nranks, lastAlgorithm(child), commState(child).c_str());
    }
  }
  std::string names;
  for (const std::string& name : algorithms) names += (names.empty() ? "" : " ") + name;
  say("child done: %llu calls, %llu wrong (%llu elements) (algorithms %s)",
      static_cast<unsigned long long>(plan.shrinkCalls), static_cast<unsigned long long>(wrongCalls),
      static_cast<unsigned long long>(wrongElements), names.c_str());
  // The parent's resources go at its destroy, which must not wait for the rank that is gone.
  std::atomic<bool> destroyed{false};
  const double destroyStart = wallSeconds();
  std::thread([parent, &destroyed] {
    ncclCommDestroy(parent);
    destroyed.store(true);
  }).detach();
  while (!destroyed.load() && wallSeconds() - destroyStart < 15) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!destroyed.load()) {
    say("the parent's ncclCommDestroy still runs after 15 s");
    std::fflush(stdout);
    _exit(6);
  }
  say("parent destroyed in %.2f s", wallSeconds() - destroyStart);
  ncclCommDestroy(child);
  say("done");
  return wrongCalls ? 7 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  fault::FaultPlan plan;
  std::string error;
  if (!fault::parseFaultPlan(argc, argv, &plan, &error)) {
    std::fprintf(stderr, "fault_rank: %s\n", error.c_str());
    return 2;
  }
  say("rank %d pid %d scenario %s", plan.rank, static_cast<int>(getpid()), fault::scenarioName(plan.scenario));
  ncclUniqueId id;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  const size_t maxCount = fault::countAt(4) * static_cast<size_t>(plan.nranks);
  float* send = nullptr;
  float* recv = nullptr;
  if (cudaSetDevice(0) != cudaSuccess || !shareUniqueId(plan, &id) ||
      ncclCommInitRank(&comm, plan.nranks, id, plan.rank) != ncclSuccess ||
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaMalloc(&send, maxCount * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&recv, maxCount * sizeof(float)) != cudaSuccess) {
    say("set-up failed");
    return 4;
  }
  const bool recovers = plan.shrinkCalls > 0 && plan.rank != plan.culprit && plan.rank != plan.alsoExclude;
  // Says when this survivor first knew, then recovers; without --shrink-calls, aborts. A rank
  // the survivors exclude with the culprit leaves the job.
  auto failed = [&](const char* what) {
    say("error seen at %.3f: %s", wallSeconds(), what);
    if (recovers) return recover(plan, comm, stream, send, recv, maxCount);
    ncclCommAbort(comm);
    if (plan.shrinkCalls > 0 && plan.rank == plan.alsoExclude) {
      say("excluded with the culprit: left the job");
      return 0;
    }
    return 1;
  };
  for (uint64_t call = 1; call <= plan.calls; ++call) {
    const size_t count = fault::countAt(call);
    ncclResult_t result = ncclSuccess;
    switch (fault::stepAt(plan, call)) {
      case fault::Step::kSleepForever:
        say("fault at %.3f: rank %d sleeps instead of calling AllReduce %llu", wallSeconds(), plan.rank,
            static_cast<unsigned long long>(call));
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
      case fault::Step::kKillSelf:
        say("fault at %.3f: rank %d kills itself before AllReduce %llu", wallSeconds(), plan.rank,
            static_cast<unsigned long long>(call));
        raise(SIGKILL);
        break;
      case fault::Step::kAllGather:
        say("fault at %.3f: rank %d calls AllGather where the others call AllReduce %llu", wallSeconds(),
            plan.rank, static_cast<unsigned long long>(call));
        result = ncclAllGather(send, recv, count, ncclFloat, comm, stream);
        break;
      case fault::Step::kHoldThenAllReduce:
        say("fault at %.3f: rank %d's stream is held before AllReduce %llu", wallSeconds(), plan.rank,
            static_cast<unsigned long long>(call));
        if (fault::launchHoldKernel(stream) != cudaSuccess) return 4;
        result = ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream);
        break;
      case fault::Step::kAllReduce:
        result = ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream);
        break;
    }
    if (result != ncclSuccess) {
      say("call %llu returned %d (%s)", static_cast<unsigned long long>(call), static_cast<int>(result),
          ncclGetErrorString(result));
      return failed("a call returned an error");
    }
    const Wait wait = waitForCall(comm, stream, call, plan, plan.deadlineS);
    if (wait == Wait::kDeadline) return 3;
    if (wait == Wait::kFailed) return failed("the call failed");
    if (const uint64_t pauseMs = fault::pauseMsAfter(plan, call)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs));
    }
  }
  say("done");
  ncclCommDestroy(comm);
  return 0;
}
