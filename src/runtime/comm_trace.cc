#include "runtime/comm_trace.h"

#include "runtime/comm_context.h"
#include "trace/watchdog.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

std::unique_ptr<CommTrace> CommTrace::make(CommContext& ctx) {
  std::unique_ptr<FlightRecorder> recorder = makeFlightRecorder(ctx.cudaDev);
  if (!recorder) return nullptr;
  return std::unique_ptr<CommTrace>(new CommTrace(ctx, std::move(recorder)));
}

CommTrace::CommTrace(CommContext& ctx, std::unique_ptr<FlightRecorder> recorder)
    : ctx_(ctx), recorder_(std::move(recorder)) {}

CommTrace::~CommTrace() { unwatch(); }

void CommTrace::watch(std::vector<TraceEndpoint> endpoints) {
  if (watched_) return;
  endpoints_ = std::move(endpoints);
  // Our kernels stamp the sequence numbers they started and completed (DeviceComm::progress).
  if (PeerMemory* peers = ctx_.peers()) {
    if (const volatile uint64_t* words = peers->progressWords()) recorder_->setDeviceProgress(&words[0], &words[1]);
  }
  registerTracedComm(this);
  watched_ = true;
}

void CommTrace::unwatch() {
  if (!watched_) return;
  unregisterTracedComm(this);
  watched_ = false;
}

int CommTrace::rank() const { return ctx_.rank; }
int CommTrace::cudaDev() const { return ctx_.cudaDev; }
const void* CommTrace::ncclHandle() const { return ctx_.comm; }

void CommTrace::abort(ncclResult_t reason) { ctx_.failFromWatchdog(reason); }
void CommTrace::revoke(ncclResult_t reason) { ctx_.revokeFromWatchdog(reason); }

}  // namespace flashccl
