// A kernel that holds all but `free` multiprocessors of the current device for a while: one
// block per SM (most of its shared memory each), spinning on the GPU's global timer. For tests of
// what our kernels do when another kernel has taken most of the GPU.
#pragma once

#include <cuda_runtime.h>

namespace flashccl_gpu_test {

cudaError_t holdMultiprocessors(int device, int free, double seconds, cudaStream_t stream);

}  // namespace flashccl_gpu_test
