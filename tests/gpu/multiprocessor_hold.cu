#include "multiprocessor_hold.h"

namespace flashccl_gpu_test {

namespace {

__global__ void spinFor(unsigned long long ns) {
  extern __shared__ char hold[];
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  if (threadIdx.x == 0) hold[0] = 1;
}

}  // namespace

cudaError_t holdMultiprocessors(int device, int free, double seconds, cudaStream_t stream) {
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) return e;
  const int smem = static_cast<int>(prop.sharedMemPerBlockOptin);
  e = cudaFuncSetAttribute(spinFor, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e != cudaSuccess) return e;
  spinFor<<<prop.multiProcessorCount - free, 32, smem, stream>>>(static_cast<unsigned long long>(seconds * 1e9));
  return cudaGetLastError();
}

}  // namespace flashccl_gpu_test
