// Error propagation, the NCCL way: every internal function that can fail returns ncclResult_t, and
// each level that passes a failure up leaves an INFO breadcrumb "file:line -> code", so a failure
// deep down can be traced from the log without a debugger.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "base/log.h"

#define FCCL_CHECK(call)                                                                 \
  do {                                                                                   \
    ncclResult_t fccl_res_ = (call);                                                     \
    if (fccl_res_ != ncclSuccess && fccl_res_ != ncclInProgress) {                       \
      FCCL_INFO(::flashccl::kLogAll, "%s:%d -> %d", __FILE__, __LINE__, (int)fccl_res_); \
      return fccl_res_;                                                                  \
    }                                                                                    \
  } while (0)

#define FCCL_CUDA_CHECK(call)                                                            \
  do {                                                                                   \
    cudaError_t fccl_err_ = (call);                                                      \
    if (fccl_err_ != cudaSuccess) {                                                      \
      FCCL_WARN("Cuda failure %d '%s' in %s", (int)fccl_err_,                            \
                cudaGetErrorString(fccl_err_), #call);                                   \
      return ncclUnhandledCudaError;                                                     \
    }                                                                                    \
  } while (0)

// For argument checks: WARN with the reason and return the code.
#define FCCL_REQUIRE(cond, code, ...) \
  do {                                \
    if (!(cond)) {                    \
      FCCL_WARN(__VA_ARGS__);         \
      return (code);                  \
    }                                 \
  } while (0)
