#include "runtime/stream_device.h"

#include "base/driver_entry.h"

namespace flashccl {

void* StreamDeviceCheck::driverContextOf(cudaStream_t stream) {
  using StreamGetCtx = int (*)(void*, void**);  // CUresult cuStreamGetCtx(CUstream, CUcontext*)
  static const StreamGetCtx getCtx = reinterpret_cast<StreamGetCtx>(driverEntryPoint("cuStreamGetCtx"));
  void* context = nullptr;
  if (getCtx == nullptr || getCtx(stream, &context) != 0) return nullptr;
  return context;
}

bool StreamDeviceCheck::onCommDevice(cudaStream_t stream, void* commContext) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return true;
  if (commContext == nullptr) return true;
  if (!haveLast_ || stream != lastStream_) {
    lastContext_ = contextOf_(stream);
    lastStream_ = stream;
    haveLast_ = true;
  }
  return lastContext_ == nullptr || lastContext_ == commContext;
}

}  // namespace flashccl
