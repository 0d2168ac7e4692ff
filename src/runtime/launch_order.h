// One communicator's kernels run one at a time, in call order, however the application issues
// them: eager calls on several streams, calls captured into CUDA graphs (also on streams forked
// inside one capture), and graph replays beside eager calls. Our kernels of one communicator
// share device-side counters and packet slots, so two of them in flight at once would corrupt
// each other. NCCL orders a communicator's work the same way (its "graph mixing").
//
// - Eager after eager on another stream: the new stream waits for an event recorded on the old.
// - Captured: inside one capture, each of our kernel nodes depends on the previous one (capture
//   dependencies, so forked streams are chained too); the first one of a capture waits on the
//   communicator's event as an external event node, and every captured kernel records it as an
//   external event node, so a replay runs after earlier eager work and before later eager work.
// - Once a communicator has been captured, every eager launch waits for and records that event:
//   a replay can come at any time, on any stream. Communicators never captured pay nothing on
//   the same stream.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

namespace flashccl {

class LaunchOrder {
 public:
  LaunchOrder() = default;
  ~LaunchOrder();
  LaunchOrder(const LaunchOrder&) = delete;
  LaunchOrder& operator=(const LaunchOrder&) = delete;

  // Before one of our kernels is enqueued on `stream`. Only the thread that calls the
  // communicator uses this (NCCL's rule).
  ncclResult_t beforeLaunch(cudaStream_t stream);
  // Right after it was enqueued.
  ncclResult_t afterLaunch(cudaStream_t stream);
  // Whether the last launch went into a capture (it runs at replay, not now).
  bool lastLaunchCaptured() const { return capturingNow_; }
  // Whether a launch on `stream` now would go into a capture (the query beforeLaunch makes; a
  // failed query counts as no capture and leaves no error behind).
  static bool streamCapturing(cudaStream_t stream);

 private:
  ncclResult_t ensureEvent();

  cudaEvent_t serial_ = nullptr;
  cudaStream_t lastEagerStream_ = nullptr;
  bool haveLastEager_ = false;
  bool captured_ = false;           // some capture has taken one of our kernels
  bool capturingNow_ = false;       // set by beforeLaunch for afterLaunch
  unsigned long long captureId_ = 0;
  cudaGraphNode_t lastCapturedNode_ = nullptr;
};

}  // namespace flashccl
