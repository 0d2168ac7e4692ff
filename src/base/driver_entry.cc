#include "base/driver_entry.h"

#include <cuda_runtime_api.h>

namespace flashccl {

void* driverEntryPoint(const char* symbol) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(symbol, &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return entry;
}

}  // namespace flashccl
