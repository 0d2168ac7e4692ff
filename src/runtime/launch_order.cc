#include "runtime/launch_order.h"

#include "base/check.h"
#include "base/log.h"

namespace flashccl {

namespace {

bool isLegacyStream(cudaStream_t stream) { return stream == nullptr || stream == cudaStreamLegacy; }

}  // namespace

LaunchOrder::~LaunchOrder() {
  if (serial_ != nullptr) cudaEventDestroy(serial_);
}

ncclResult_t LaunchOrder::ensureEvent() {
  if (serial_ == nullptr) FCCL_CUDA_CHECK(cudaEventCreateWithFlags(&serial_, cudaEventDisableTiming));
  return ncclSuccess;
}

bool LaunchOrder::streamCapturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamGetCaptureInfo(stream, &status, nullptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return status == cudaStreamCaptureStatusActive;
}

ncclResult_t LaunchOrder::beforeLaunch(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  if (cudaStreamGetCaptureInfo(stream, &status, &id) != cudaSuccess) {
    // Nothing usable to order against (and nothing launches without a working runtime). The
    // failed query must not surface later as the application's error.
    cudaGetLastError();
    capturingNow_ = false;
    return ncclSuccess;
  }
  capturingNow_ = status == cudaStreamCaptureStatusActive;
  if (capturingNow_) {
    FCCL_CHECK(ensureEvent());
    if (id == captureId_ && lastCapturedNode_ != nullptr) {
      // Our previous kernel of this same capture, perhaps on a forked stream: depend on it.
      FCCL_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(stream, &lastCapturedNode_, nullptr, 1,
                                                          cudaStreamAddCaptureDependencies));
      return ncclSuccess;
    }
    if (!captured_ && haveLastEager_ && !isLegacyStream(lastEagerStream_)) {
      // The first capture after eager work elsewhere: the event has to mark that work now.
      // (Recording on the legacy stream during a capture would break the capture; an eager
      // launch there is followed by the application's own stream order.)
      if (cudaEventRecord(serial_, lastEagerStream_) != cudaSuccess) cudaGetLastError();
    }
    captured_ = true;
    captureId_ = id;
    lastCapturedNode_ = nullptr;
    FCCL_CUDA_CHECK(cudaStreamWaitEvent(stream, serial_, cudaEventWaitExternal));
    return ncclSuccess;
  }
  if (captured_) {
    // A replay of a captured kernel may have run since, on any stream.
    FCCL_CUDA_CHECK(cudaStreamWaitEvent(stream, serial_, 0));
  } else if (haveLastEager_ && stream != lastEagerStream_) {
    FCCL_CHECK(ensureEvent());
    // The previous stream must still exist. If the app has destroyed it, recording fails and
    // there is nothing left on it to wait for.
    if (cudaEventRecord(serial_, lastEagerStream_) == cudaSuccess) {
      FCCL_CUDA_CHECK(cudaStreamWaitEvent(stream, serial_, 0));
    } else {
      cudaGetLastError();
    }
  }
  lastEagerStream_ = stream;
  haveLastEager_ = true;
  return ncclSuccess;
}

ncclResult_t LaunchOrder::afterLaunch(cudaStream_t stream) {
  if (capturingNow_) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    const cudaGraphNode_t* deps = nullptr;
    size_t ndeps = 0;
    FCCL_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &deps, nullptr, &ndeps));
    // Right after our kernel was captured, the stream's only dependency is that kernel node.
    lastCapturedNode_ = ndeps == 1 ? deps[0] : nullptr;
    FCCL_CUDA_CHECK(cudaEventRecordWithFlags(serial_, stream, cudaEventRecordExternal));
    return ncclSuccess;
  }
  if (captured_) FCCL_CUDA_CHECK(cudaEventRecord(serial_, stream));
  return ncclSuccess;
}

}  // namespace flashccl
