// CUDA driver functions found through the runtime (cudaGetDriverEntryPointByVersion), so the
// library needs no link to libcuda of its own.
#pragma once

namespace flashccl {

// The driver's `symbol` as of the CUDA 12.0 ABI, or nullptr when the driver does not give it
// (then callers take the runtime's way). Not cached: callers keep what they need in a static.
void* driverEntryPoint(const char* symbol);

}  // namespace flashccl
