#include "fault_hold_kernel.h"

namespace flashccl_gpu_test::fault {

namespace {

// Sleeps in steps of a millisecond so it takes almost nothing from the other processes that
// time-share the GPU; it ends only with its process.
__global__ void holdForever(const volatile int* release) {
  while (*release == 0) __nanosleep(1000000);
}

}  // namespace

cudaError_t launchHoldKernel(cudaStream_t stream) {
  int* release = nullptr;
  cudaError_t err = cudaMalloc(&release, sizeof(int));
  if (err != cudaSuccess) return err;
  err = cudaMemsetAsync(release, 0, sizeof(int), stream);
  if (err != cudaSuccess) return err;
  holdForever<<<1, 1, 0, stream>>>(release);
  return cudaGetLastError();
}

}  // namespace flashccl_gpu_test::fault
