// Kernel launches through the driver (cuLaunchKernel on the kernel's context-independent CUkernel
// handle) instead of the runtime's cudaLaunchKernel: measured on the H200 machine, the driver call
// costs 0.1-0.25 us less host time per launch (3.0-4.1 us against 3.2-4.3 us there), and a launch
// is most of what an intercepted small collective costs the host. A CUkernel takes its context
// from the stream, so the launch lands on the stream's device. Graph capture sees the same kernel
// node either way. Anything unusual (no driver entry point, no handle, a failed launch) goes
// through cudaLaunchKernel, which then also gives the error its runtime code and message.
#pragma once

#include <cuda_runtime_api.h>

namespace flashccl {

cudaError_t launchThroughDriver(const void* kernel, dim3 grid, dim3 block, void** args, cudaStream_t stream);

// A launch whose blocks are all resident at once, or none is (CUDA's cooperative launch): for
// kernels whose blocks wait on each other (the chunked kernels' roles, the MSCCL executor's
// dependencies). Without it a kernel that got only part of its blocks onto a GPU busy with other
// work could wait forever for the rest. The grid must fit the device (the kernels are compiled
// for two blocks per multiprocessor, which is what their grids assume). Through the runtime on
// the current device: these launches carry megabytes, where the runtime's extra host time does
// not show.
cudaError_t launchCooperative(const void* kernel, dim3 grid, dim3 block, void** args, cudaStream_t stream);

// While one lives on a thread, that thread's launches are counted instead of made: the grid
// blocks each launch would occupy, in order. `flashccl plan` runs an algorithm's own launch()
// under one to say how many blocks it takes from the application's kernels at each size.
class LaunchCounter {
 public:
  LaunchCounter();
  ~LaunchCounter();
  LaunchCounter(const LaunchCounter&) = delete;
  LaunchCounter& operator=(const LaunchCounter&) = delete;
  // Blocks of every launch counted so far (threads per block: the kernels' 512).
  const unsigned* blocks() const { return blocks_; }
  int launches() const { return launches_; }
  // Counts one launch; false when no counter lives on this thread (then it is made).
  static bool count(dim3 grid);

 private:
  static constexpr int kMaxLaunches = 8;
  unsigned blocks_[kMaxLaunches] = {};
  int launches_ = 0;
  LaunchCounter* previous_ = nullptr;
};

}  // namespace flashccl
