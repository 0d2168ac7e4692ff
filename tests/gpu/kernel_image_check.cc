// flashccl_kernel_image_check: kernelImageProblem() built for sm_80 only, run on the GPU machine.
// On a GPU of another compute capability it must report the problem and name the GPU's compute
// capability and the build's architectures; on an sm_80 GPU it must find the code. Prints PASS or
// FAIL with the text; exit 0 on PASS, 1 on FAIL, 2 without a GPU.
#include <cstdio>
#include <string>

#include <cuda_runtime_api.h>

#include "transport/p2p/kernel_image.h"

int main() {
  if (cudaSetDevice(0) != cudaSuccess) {
    std::printf("SKIP: no GPU\n");
    return 2;
  }
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  const std::string problem = flashccl::kernelImageProblem(0);
  const std::string capability = std::to_string(major) + "." + std::to_string(minor);
  bool pass;
  if (major == 8 && minor == 0) {
    pass = problem.empty();
  } else {
    pass = problem.find("compute capability " + capability) != std::string::npos &&
           problem.find("80-real") != std::string::npos;
  }
  // No error may be left behind for the application.
  pass = pass && cudaGetLastError() == cudaSuccess;
  std::printf("%s: GPU compute capability %s; kernelImageProblem: \"%s\"\n", pass ? "PASS" : "FAIL",
              capability.c_str(), problem.c_str());
  return pass ? 0 : 1;
}
