// One rank of a job that goes wrong on cue, for issue 14's GPU checks (tests/gpu/fault_check.sh):
// every rank on GPU 0 in its own process (each with its own NCCL_HOSTID), AllReduce after
// AllReduce of changing sizes, each waited for the way PyTorch waits: polling the stream and
// ncclCommGetAsyncError. The culprit sleeps, dies, calls AllGather, or has its stream held
// (fault_plan.h). A rank that sees an asynchronous error aborts its communicator and exits 1.
//
// Lines it prints (the script reads them): "rank R pid P scenario S", "fault at T: ...",
// "async error E (name) at call I after W s", "done". T is wall-clock seconds since the epoch.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

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

// Waits for the call like PyTorch's watchdog: stream done, or the communicator's async error.
int waitForCall(ncclComm_t comm, cudaStream_t stream, uint64_t call, double deadlineS) {
  const double start = wallSeconds();
  for (;;) {
    const cudaError_t done = cudaStreamQuery(stream);
    if (done == cudaSuccess) return 0;
    if (done != cudaErrorNotReady) {
      say("cuda error %d (%s) at call %llu", static_cast<int>(done), cudaGetErrorString(done),
          static_cast<unsigned long long>(call));
      return 1;
    }
    ncclResult_t async = ncclSuccess;
    ncclCommGetAsyncError(comm, &async);
    if (async != ncclSuccess && async != ncclInProgress) {
      say("async error %d (%s) at call %llu after %.1f s", static_cast<int>(async),
          ncclGetErrorString(async), static_cast<unsigned long long>(call), wallSeconds() - start);
      ncclCommAbort(comm);
      return 1;
    }
    if (wallSeconds() - start > deadlineS) {
      say("no error after %.0f s in call %llu", deadlineS, static_cast<unsigned long long>(call));
      return 3;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
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
      ncclCommAbort(comm);
      return 1;
    }
    if (const int code = waitForCall(comm, stream, call, plan.deadlineS)) return code;
    if (const uint64_t pauseMs = fault::pauseMsAfter(plan, call)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs));
    }
  }
  say("done");
  ncclCommDestroy(comm);
  return 0;
}
