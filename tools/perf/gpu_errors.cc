#include "gpu_errors.h"

#include <cstdio>
#include <cstdlib>

namespace flashccl {
namespace perf {

void throwCudaFailure(cudaError_t error, const char* call, const std::string& context,
                      const char* file, int line) {
  char text[256];
  std::snprintf(text, sizeof(text), " failed: CUDA error %d %s (%s) [%s at %s:%d]",
                static_cast<int>(error), cudaGetErrorName(error), cudaGetErrorString(error), call,
                file, line);
  throw PerfFailure(context + text);
}

void throwNcclFailure(ncclResult_t result, const char* call, ncclComm_t comm,
                      const std::string& context, const char* file, int line) {
  // ncclGetLastError gives NCCL's own explanation (the WARN text) where there is one.
  const char* last = ncclGetLastError(comm);
  char text[512];
  std::snprintf(text, sizeof(text), " failed: NCCL error %d %s%s%s [%s at %s:%d]",
                static_cast<int>(result), ncclGetErrorString(result),
                last && *last ? ": " : "", last ? last : "", call, file, line);
  throw PerfFailure(context + text);
}

void exitWithFailure(const std::string& message, int status) {
  std::fflush(stdout);
  std::fprintf(stderr, "flashccl perf: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(status);
}

}  // namespace perf
}  // namespace flashccl
