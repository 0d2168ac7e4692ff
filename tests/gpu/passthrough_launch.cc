#include "passthrough_launch.h"

#include <chrono>
#include <thread>

namespace flashccl_gpu_test::passthrough {

void checkCuda(cudaError_t error, const std::string& call) {
  if (error != cudaSuccess) throw CallFailure(call + ": " + cudaGetErrorString(error));
}

void checkNccl(ncclResult_t result, const std::string& call, ncclComm_t comm) {
  if (result == ncclSuccess) return;
  std::string what = call + ": " + ncclGetErrorString(result);
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && *last != '\0') what += std::string(" (") + last + ")";
  throw CallFailure(what);
}

void waitForStream(cudaStream_t stream, ncclComm_t comm, double timeoutS, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
  for (;;) {
    const cudaError_t state = cudaStreamQuery(stream);
    if (state == cudaSuccess) return;
    if (state != cudaErrorNotReady) checkCuda(state, "waiting for " + what);
    if (std::chrono::steady_clock::now() > deadline) {
      std::string message = "timed out after " + std::to_string(static_cast<int>(timeoutS)) +
                            " s waiting for " + what;
      ncclResult_t async = ncclSuccess;
      if (comm != nullptr && ncclCommGetAsyncError(comm, &async) == ncclSuccess && async != ncclSuccess)
        message += std::string(" (communicator error: ") + ncclGetErrorString(async) + ")";
      throw CallFailure(message);
    }
    // Collectives here take microseconds to milliseconds; a short sleep keeps the poll cheap
    // without adding much to each case.
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

namespace {

void issueOrThrow(const std::function<IssueResult()>& issue, const Launch& launch) {
  const IssueResult issued = issue();
  checkNccl(issued.result, std::string(issued.call) + " through " + launch.label, launch.comm);
}

// Captures in thread-local mode: in threads mode the other ranks' threads keep making CUDA calls
// (copies, their own captures) while this one captures, which global mode would forbid.
void runCaptured(const std::function<IssueResult()>& issue, const Launch& launch) {
  const std::string what = launch.label + " graph";
  checkCuda(cudaStreamBeginCapture(launch.stream, cudaStreamCaptureModeThreadLocal),
            "cudaStreamBeginCapture for " + what);
  const IssueResult issued = issue();
  cudaGraph_t graph = nullptr;
  // End the capture whatever happened, or the stream stays unusable for every later case.
  const cudaError_t ended = cudaStreamEndCapture(launch.stream, &graph);
  cudaGraphExec_t exec = nullptr;
  try {
    checkNccl(issued.result, std::string(issued.call) + " through " + launch.label + " (captured)",
              launch.comm);
    checkCuda(ended, "cudaStreamEndCapture for " + what);
    checkCuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate for " + what);
    for (int i = 0; i < launch.launches; ++i) {
      checkCuda(cudaGraphLaunch(exec, launch.stream), "cudaGraphLaunch for " + what);
      waitForStream(launch.stream, launch.comm, launch.timeoutS, what + " launch " + std::to_string(i + 1));
    }
  } catch (...) {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
    throw;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

}  // namespace

void runOnStream(const std::function<IssueResult()>& issue, const Launch& launch) {
  if (launch.graph) {
    runCaptured(issue, launch);
    return;
  }
  issueOrThrow(issue, launch);
  waitForStream(launch.stream, launch.comm, launch.timeoutS, launch.label + " call");
}

}  // namespace flashccl_gpu_test::passthrough
