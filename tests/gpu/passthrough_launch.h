// Running one rank's side of a case on its stream, eagerly or captured into a CUDA graph, with
// every CUDA and NCCL error turned into a CallFailure that names the call. Waits poll with a
// deadline instead of blocking, so a peer that never joins a collective becomes a reported
// time-out on this rank, not a hang.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>
#include <nccl.h>

#include "passthrough_issue.h"

namespace flashccl_gpu_test::passthrough {

class CallFailure : public std::runtime_error {
 public:
  explicit CallFailure(const std::string& what) : std::runtime_error(what) {}
};

// Throws CallFailure("<call>: <CUDA error text>") unless `error` is cudaSuccess.
void checkCuda(cudaError_t error, const std::string& call);
// Throws CallFailure("<call>: <NCCL error text> (<last error>)") unless `result` is ncclSuccess.
void checkNccl(ncclResult_t result, const std::string& call, ncclComm_t comm);

// Waits until `stream` is idle; CallFailure after `timeoutS` seconds, naming `what` and the
// communicator's asynchronous error if it has one.
void waitForStream(cudaStream_t stream, ncclComm_t comm, double timeoutS, const std::string& what);

struct Launch {
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;
  bool graph = false;   // capture into a CUDA graph, instantiate, launch
  int launches = 1;     // graph launches; out-of-place graphs are replayed to check replay
  double timeoutS = 30;
  std::string label;    // "flashccl" or "NCCL", for messages
};

// Issues the calls (`issue`) as `launch` says and waits until they are done.
void runOnStream(const std::function<IssueResult()>& issue, const Launch& launch);

}  // namespace flashccl_gpu_test::passthrough
