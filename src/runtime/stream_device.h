// Does the caller's stream belong to the communicator's device? Our kernels are launched through
// the driver on the kernel's CUkernel (algo/driver_launch.h), which runs in the *stream's*
// context: a stream of another GPU would run our kernel there, on buffers that belong to the
// communicator's GPU. Dispatch fails such a call instead, as NCCL does.
//
// Told by the stream's driver context (cuStreamGetCtx) against the context current once dispatch
// has made the communicator's device current. Not cudaStreamGetDevice: that one is refused during
// a CUDA graph capture and invalidates the capture (seen on the H200 machine, CUDA 13, in all
// three capture modes); cuStreamGetCtx is allowed there.
//
// On the hot path: the answer for the last stream is kept, so a communicator used on one stream
// pays one comparison per call.
#pragma once

#include <cuda_runtime_api.h>

namespace flashccl {

class StreamDeviceCheck {
 public:
  // The driver context a stream belongs to, or nullptr when it cannot be told.
  using ContextOf = void* (*)(cudaStream_t stream);
  static void* driverContextOf(cudaStream_t stream);  // cuStreamGetCtx

  explicit StreamDeviceCheck(ContextOf contextOf = driverContextOf) : contextOf_(contextOf) {}

  // True unless `stream` is known to belong to a context other than `commContext` (the context
  // current on the communicator's device; nullptr: unknown). The per-thread and legacy default
  // streams (and 0) are the current context's: always true. A stream whose context cannot be
  // told is given the benefit of the doubt, as before this check existed.
  bool onCommDevice(cudaStream_t stream, void* commContext);

 private:
  ContextOf contextOf_;
  cudaStream_t lastStream_ = nullptr;
  void* lastContext_ = nullptr;
  bool haveLast_ = false;
};

}  // namespace flashccl
