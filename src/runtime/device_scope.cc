#include "runtime/device_scope.h"

#include <cuda_runtime_api.h>

#include "base/driver_entry.h"

namespace flashccl {

namespace {

using CtxGetCurrent = int (*)(void**);  // CUresult cuCtxGetCurrent(CUcontext*)

// The driver's cuCtxGetCurrent, found once through the runtime (no link to libcuda); nullptr
// when the driver does not give it, and then every call asks cudaGetDevice.
CtxGetCurrent driverCtxGetCurrent() {
  static const CtxGetCurrent function = reinterpret_cast<CtxGetCurrent>(driverEntryPoint("cuCtxGetCurrent"));
  return function;
}

void* currentContext() {
  const CtxGetCurrent get = driverCtxGetCurrent();
  void* context = nullptr;
  if (get == nullptr || get(&context) != 0) return nullptr;
  return context;
}

}  // namespace

DeviceScope::DeviceScope(int device, CurrentContextHint& hint) {
  void* const context = currentContext();
  if (context != nullptr && context == hint.context.load(std::memory_order_relaxed)) {
    ok_ = true;
    context_ = context;
    return;
  }
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) {
    cudaGetLastError();
    current = -1;
  }
  if (current == device) {
    // Only now is `context` known to be this device's: remember it for the next call.
    if (context != nullptr) hint.context.store(context, std::memory_order_relaxed);
    ok_ = true;
    context_ = context;
    return;
  }
  if (cudaSetDevice(device) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  previous_ = current;
  ok_ = true;
  context_ = currentContext();  // the switch made the device's (primary) context current
}

DeviceScope::~DeviceScope() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

}  // namespace flashccl
