#include "captured_launch.h"

namespace flashccl_bench {

namespace {

std::string cudaProblem(const char* what, cudaError_t err) {
  return std::string(what) + ": " + cudaGetErrorString(err);
}

// The nodes that follow `node` (none, one, or a fork).
std::vector<cudaGraphNode_t> dependents(cudaGraphNode_t node, cudaError_t* err) {
  size_t count = 0;
  *err = cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &count);
  std::vector<cudaGraphNode_t> nodes(count);
  if (*err == cudaSuccess && count > 0) {
    *err = cudaGraphNodeGetDependentNodes(node, nodes.data(), nullptr, &count);
  }
  return nodes;
}

}  // namespace

std::unique_ptr<CapturedLaunch> CapturedLaunch::capture(cudaStream_t stream,
                                                        const std::function<bool()>& enqueue,
                                                        std::string* error) {
  std::unique_ptr<CapturedLaunch> captured(new CapturedLaunch(stream));
  // Thread-local: only this thread's calls are checked against the capture, and the calls the
  // enqueue makes (cudaGetDevice, cudaStreamIsCapturing) are all legal during one.
  cudaError_t err = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (err != cudaSuccess) {
    *error = cudaProblem("cudaStreamBeginCapture", err);
    return nullptr;
  }
  const bool enqueued = enqueue();
  err = cudaStreamEndCapture(stream, &captured->graph_);  // always: leave the stream usable
  if (!enqueued) {
    *error = "the call failed while it was being captured";
    return nullptr;
  }
  if (err != cudaSuccess) {
    *error = cudaProblem("cudaStreamEndCapture", err);
    return nullptr;
  }
  if (!captured->takeKernels(error)) return nullptr;
  return captured;
}

CapturedLaunch::~CapturedLaunch() {
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
}

bool CapturedLaunch::takeKernels(std::string* error) {
  size_t rootCount = 0;
  cudaError_t err = cudaGraphGetRootNodes(graph_, nullptr, &rootCount);
  cudaGraphNode_t node = nullptr;
  if (err == cudaSuccess && rootCount == 1) err = cudaGraphGetRootNodes(graph_, &node, &rootCount);
  if (err != cudaSuccess) {
    *error = cudaProblem("cudaGraphGetRootNodes", err);
    return false;
  }
  if (rootCount > 1) {
    *error = "the call enqueued " + std::to_string(rootCount) +
             " independent pieces of work; only one chain of kernels can be launched again";
    return false;
  }
  while (node != nullptr) {
    cudaGraphNodeType type;
    err = cudaGraphNodeGetType(node, &type);
    if (err != cudaSuccess) {
      *error = cudaProblem("cudaGraphNodeGetType", err);
      return false;
    }
    if (type != cudaGraphNodeTypeKernel) {
      *error = "the call enqueued something other than a kernel (graph node type " +
               std::to_string(static_cast<int>(type)) + ")";
      return false;
    }
    cudaKernelNodeParams params{};
    err = cudaGraphKernelNodeGetParams(node, &params);
    if (err != cudaSuccess) {
      *error = cudaProblem("cudaGraphKernelNodeGetParams", err);
      return false;
    }
    if (params.kernelParams == nullptr) {
      *error = "a captured kernel carries its arguments in `extra`, which cudaLaunchKernel lacks";
      return false;
    }
    kernels_.push_back(
        Kernel{params.func, params.gridDim, params.blockDim, params.kernelParams,
               params.sharedMemBytes});
    const std::vector<cudaGraphNode_t> next = dependents(node, &err);
    if (err != cudaSuccess) {
      *error = cudaProblem("cudaGraphNodeGetDependentNodes", err);
      return false;
    }
    if (next.size() > 1) {
      *error = "the call's kernels fork; only one chain of kernels can be launched again";
      return false;
    }
    node = next.empty() ? nullptr : next.front();
  }
  if (kernels_.empty()) {
    *error = "the call enqueued no kernel";
    return false;
  }
  return true;
}

}  // namespace flashccl_bench
