// The kernels one call enqueues, taken from a CUDA graph capture of that call and launched again
// with a plain launch call: the same kernels, grids, blocks and argument bytes, with none of the
// host work that chose and built them. That is the "bare kernel launch" an intercepted call is
// measured against.
//
// Launching the captured arguments again is what a graph replay does, and our kernels are built
// for it (docs/design.md, "Graph-safe device state": what changes from one run to the next lives in device memory).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "algo/driver_launch.h"

namespace flashccl_bench {

class CapturedLaunch {
 public:
  // Captures what `enqueue` puts on `stream` (the caller has made the stream's device current).
  // `enqueue` returns false when the call itself failed. Only kernel launches in one chain can
  // be launched again like this; anything else (a copy, an event, a fork) is an error.
  // Returns nullptr and sets *error when the capture is not usable.
  static std::unique_ptr<CapturedLaunch> capture(cudaStream_t stream,
                                                 const std::function<bool()>& enqueue,
                                                 std::string* error);

  ~CapturedLaunch();
  CapturedLaunch(const CapturedLaunch&) = delete;
  CapturedLaunch& operator=(const CapturedLaunch&) = delete;

  // How a kernel is enqueued: the way flashccl's own launches go (the driver's cuLaunchKernel,
  // src/algo/driver_launch.h), or the runtime's cudaLaunchKernel, as an application's own
  // kernels usually are.
  enum class Launcher { kFlashccl, kRuntime };

  // Enqueues the captured kernels again, in order, on the stream they were captured from.
  cudaError_t launch(Launcher how) const {
    for (const Kernel& k : kernels_) {
      const cudaError_t err =
          how == Launcher::kFlashccl && k.sharedBytes == 0
              ? flashccl::launchThroughDriver(k.function, k.grid, k.block, k.arguments, stream_)
              : cudaLaunchKernel(k.function, k.grid, k.block, k.arguments, k.sharedBytes, stream_);
      if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
  }

  size_t kernelCount() const { return kernels_.size(); }

 private:
  struct Kernel {
    const void* function;
    dim3 grid;
    dim3 block;
    void** arguments;  // owned by the graph's node
    size_t sharedBytes;
  };

  explicit CapturedLaunch(cudaStream_t stream) : stream_(stream) {}
  bool takeKernels(std::string* error);

  cudaStream_t stream_;
  cudaGraph_t graph_ = nullptr;  // kept: it owns the argument bytes the kernels point to
  std::vector<Kernel> kernels_;
};

}  // namespace flashccl_bench
