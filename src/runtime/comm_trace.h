// One communicator's part in the fault locator (src/trace, docs/trace.md): its flight recorder,
// every rank's side-channel endpoint from the set-up exchange, and what the watchdog may do to
// it. Owned by the CommContext; registered with the process's watchdog once the exchange has
// delivered the endpoints, unregistered before the context goes.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include <nccl.h>

#include "trace/flight_recorder.h"
#include "trace/trace_endpoint.h"
#include "trace/traced_comm.h"

namespace flashccl {

class CommContext;

class CommTrace final : public TracedComm {
 public:
  // Null when tracing is off (FLASHCCL_TRACE=0).
  static std::unique_ptr<CommTrace> make(CommContext& ctx);
  ~CommTrace() override;

  // After the set-up exchange: every rank's record (index = rank). Starts the watching.
  void watch(std::vector<TraceEndpoint> endpoints);
  // Before the communicator goes (destroy, abort): no thread of the watchdog touches it after.
  void unwatch();

  // TracedComm
  int rank() const override;
  int cudaDev() const override;
  const void* ncclHandle() const override;
  const std::vector<TraceEndpoint>& endpoints() const override { return endpoints_; }
  FlightRecorder& recorder() override { return *recorder_; }
  void abort(ncclResult_t reason) override;
  void revoke(ncclResult_t reason) override;

 private:
  CommTrace(CommContext& ctx, std::unique_ptr<FlightRecorder> recorder);
  CommContext& ctx_;
  std::unique_ptr<FlightRecorder> recorder_;
  std::vector<TraceEndpoint> endpoints_;
  bool watched_ = false;
};

}  // namespace flashccl
