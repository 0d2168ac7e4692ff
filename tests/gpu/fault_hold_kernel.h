// A kernel that holds a stream forever (fault_check.sh's "hold" scenario): the collective queued
// behind it never starts on that rank, as when a rank's earlier work hangs on its GPU.
#pragma once

#include <cuda_runtime_api.h>

namespace flashccl_gpu_test::fault {

cudaError_t launchHoldKernel(cudaStream_t stream);

}  // namespace flashccl_gpu_test::fault
