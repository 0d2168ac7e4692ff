// Failures on the GPU side of `flashccl perf` are loud: every CUDA and NCCL return code is checked,
// and a failure becomes a PerfFailure carrying what was being done, on which rank and GPU, and the
// library's own error text. The runners turn it into one clear line on stderr and exit status 1
// (the other ranks would otherwise wait forever in their next collective).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace flashccl {
namespace perf {

class PerfFailure : public std::runtime_error {
 public:
  explicit PerfFailure(const std::string& what) : std::runtime_error(what) {}
};

[[noreturn]] void throwCudaFailure(cudaError_t error, const char* call, const std::string& context,
                                   const char* file, int line);
[[noreturn]] void throwNcclFailure(ncclResult_t result, const char* call, ncclComm_t comm,
                                   const std::string& context, const char* file, int line);

// Prints "flashccl perf: <message>" to stderr, flushes stdout and stderr, and ends the process at
// once with `status`, without running destructors (other threads may be blocked inside NCCL).
[[noreturn]] void exitWithFailure(const std::string& message, int status);

}  // namespace perf
}  // namespace flashccl

// `context` is any expression convertible to std::string, evaluated only on failure.
#define PERF_CUDA_CHECK(call, context)                                                  \
  do {                                                                                  \
    cudaError_t perf_err_ = (call);                                                     \
    if (perf_err_ != cudaSuccess)                                                       \
      ::flashccl::perf::throwCudaFailure(perf_err_, #call, (context), __FILE__, __LINE__); \
  } while (0)

#define PERF_NCCL_CHECK(call, comm, context)                                                   \
  do {                                                                                         \
    ncclResult_t perf_res_ = (call);                                                           \
    if (perf_res_ != ncclSuccess)                                                              \
      ::flashccl::perf::throwNcclFailure(perf_res_, #call, (comm), (context), __FILE__, __LINE__); \
  } while (0)
