#include "trace/cuda_event_probe.h"

#include <vector>

#include <cuda_runtime_api.h>

namespace flashccl {

namespace {

class CudaEventProbe final : public CompletionProbe {
 public:
  CudaEventProbe(size_t slots, int cudaDev)
      : cudaDev_(cudaDev), before_(slots, nullptr), after_(slots, nullptr), marked_(slots, false) {}

  ~CudaEventProbe() override {
    for (cudaEvent_t event : before_) {
      if (event) cudaEventDestroy(event);
    }
    for (cudaEvent_t event : after_) {
      if (event) cudaEventDestroy(event);
    }
  }

  bool markBefore(size_t slot, const void* stream) override {
    marked_[slot] = false;
    cudaStream_t s = static_cast<cudaStream_t>(const_cast<void*>(stream));
    // An event recorded into a capture becomes a graph node (and makes the capture depend on it):
    // captured calls are not followed. cudaStreamIsCapturing is legal during a capture.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s, &capture) != cudaSuccess) {
      cudaGetLastError();  // our runtime's own error state (cudart is linked statically)
      return false;
    }
    if (capture != cudaStreamCaptureStatusNone) return false;
    if (!ensureEvents(slot)) return false;
    marked_[slot] = record(before_[slot], s);
    return marked_[slot];
  }

  bool markAfter(size_t slot, const void* stream) override {
    if (!marked_[slot]) return false;
    marked_[slot] = record(after_[slot], static_cast<cudaStream_t>(const_cast<void*>(stream)));
    return marked_[slot];
  }

  Reached reachedBefore(size_t slot) override { return query(before_[slot]); }
  Reached reachedAfter(size_t slot) override { return query(after_[slot]); }

 private:
  static bool record(cudaEvent_t event, cudaStream_t stream) {
    if (cudaEventRecord(event, stream) == cudaSuccess) return true;
    cudaGetLastError();
    return false;
  }

  static Reached query(cudaEvent_t event) {
    if (event == nullptr) return Reached::kUnknown;
    const cudaError_t status = cudaEventQuery(event);
    if (status == cudaSuccess) return Reached::kYes;
    if (status == cudaErrorNotReady) return Reached::kNo;
    cudaGetLastError();
    return Reached::kUnknown;
  }

  // Events belong to the device current when they are made: the communicator's, whatever the
  // calling thread has current.
  bool ensureEvents(size_t slot) {
    if (before_[slot] && after_[slot]) return true;
    int previous = -1;
    if (cudaGetDevice(&previous) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    const bool switchDevice = previous != cudaDev_;
    if (switchDevice && cudaSetDevice(cudaDev_) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool ok = true;
    for (cudaEvent_t* event : {&before_[slot], &after_[slot]}) {
      if (*event == nullptr && cudaEventCreateWithFlags(event, cudaEventDisableTiming) != cudaSuccess) {
        *event = nullptr;
        ok = false;
      }
    }
    if (!ok) cudaGetLastError();
    if (switchDevice) cudaSetDevice(previous);
    return ok;
  }

  const int cudaDev_;
  std::vector<cudaEvent_t> before_;
  std::vector<cudaEvent_t> after_;
  std::vector<bool> marked_;  // writer thread only
};

}  // namespace

std::unique_ptr<CompletionProbe> makeCudaEventProbe(size_t slots, int cudaDev) {
  return std::make_unique<CudaEventProbe>(slots, cudaDev);
}

}  // namespace flashccl
