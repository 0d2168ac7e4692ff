#include "transport/p2p/kernel_image.h"

#include <cuda_runtime_api.h>

// The architecture list every .cu file of this target was compiled with (CMake passes it).
#ifndef FLASHCCL_CUDA_ARCHITECTURES
#define FLASHCCL_CUDA_ARCHITECTURES "unknown"
#endif

namespace flashccl {

namespace {

// Compiled with the same architectures as every other kernel of the library, so whether the
// runtime finds code for it is whether it finds code for them.
__global__ void kernelImageProbe() {}

}  // namespace

std::string kernelImageProblem(int device) {
  cudaFuncAttributes attributes;
  const cudaError_t err = cudaFuncGetAttributes(&attributes, kernelImageProbe);
  if (err == cudaSuccess) return "";
  cudaGetLastError();  // not sticky, but leave no error behind for the application
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  // Short: it travels to every peer in the set-up record's 96-byte failure text.
  return "no GPU code for compute capability " + std::to_string(major) + "." + std::to_string(minor) +
         " in this build (CUDA architectures " FLASHCCL_CUDA_ARCHITECTURES ")";
}

}  // namespace flashccl
