// Makes a communicator's device current for one intercepted call and gives the caller its own
// device back afterwards: our kernels run on the communicator's device whatever is current.
//
// On the hot path of every call. The usual case (the caller's current device already is the
// communicator's) is told by one driver call, cuCtxGetCurrent (~8 ns), compared with the context
// seen the last time the runtime confirmed the device; cudaGetDevice (~33 ns, measured on the
// H200 machine) runs only when that differs.
#pragma once

#include <atomic>

namespace flashccl {

// Per communicator: the driver context that was current when cudaGetDevice last said the
// communicator's device was. Only a hint: a mismatch takes the runtime's word.
struct CurrentContextHint {
  std::atomic<void*> context{nullptr};
};

class DeviceScope {
 public:
  DeviceScope(int device, CurrentContextHint& hint);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

  // False when the communicator's device could not be made current (the call must not launch).
  bool ok() const { return ok_; }
  // The driver context current on the communicator's device now, or nullptr when unknown.
  void* context() const { return context_; }

 private:
  int previous_ = -1;  // the caller's device to restore, or -1 when nothing was switched
  bool ok_ = false;
  void* context_ = nullptr;
};

}  // namespace flashccl
