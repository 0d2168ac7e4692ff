#include "runtime/comm_launch.h"

#include "algo/algorithm.h"
#include "base/log.h"
#include "base/thread_state.h"
#include "runtime/call_header.h"
#include "runtime/comm_context.h"
#include "runtime/device_scope.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

TraceCall tracedLaunch(const CollCall& call, const Algorithm& algorithm, uint64_t sequence, bool grouped,
                       bool captured) {
  TraceCall traced = traceCallOf(call);
  traced.algorithm = algorithm.name();
  traced.launch = sequence;
  traced.grouped = grouped;
  traced.captured = captured;
  return traced;
}

namespace {

ncclResult_t launchOnDevice(CommContext* ctx, const CollCall& call, Algorithm* algorithm, int algorithmId,
                            uint64_t sequence) {
  // Our kernels run on the communicator's device, whatever the caller's current device is.
  DeviceScope onCommDevice(ctx->cudaDev, ctx->currentContextHint);
  if (!onCommDevice.ok()) {
    FCCL_WARN("comm %p rank %d: cannot make device %d current for %s; nothing was launched",
              static_cast<void*>(call.comm), ctx->rank, ctx->cudaDev, collKindTitle(call.kind));
    return ncclUnhandledCudaError;
  }
  // A stream of another GPU would take our kernel there (stream_device.h). NCCL fails such a
  // call with ncclUnhandledCudaError ("invalid resource handle"); so do we, saying why. Not
  // forwarded: if NCCL ran it on this rank while the peers ran our kernels, their calls would
  // pair up wrongly.
  if (!ctx->streamDevice.onCommDevice(call.stream, onCommDevice.context())) {
    FCCL_WARN("comm %p rank %d: %s on stream %p, which belongs to another device (or CUDA context) "
              "than the communicator's device %d; nothing was launched", static_cast<void*>(call.comm),
              ctx->rank, collKindTitle(call.kind), static_cast<void*>(call.stream), ctx->cudaDev);
    return ncclUnhandledCudaError;
  }
  if (PeerMemory* peers = ctx->peers()) peers->stampCall(makeCallHeader(call, sequence, algorithmId), sequence);
  ncclResult_t result = ctx->launchOrder.beforeLaunch(call.stream);
  if (result == ncclSuccess) result = algorithm->launch(call, *ctx);
  if (result == ncclSuccess) result = ctx->launchOrder.afterLaunch(call.stream);
  if (result != ncclSuccess) {
    FCCL_WARN("comm %p rank %d: %s %s failed to launch: %d", static_cast<void*>(call.comm), ctx->rank,
              algorithm->name(), collKindTitle(call.kind), static_cast<int>(result));
  }
  return result;
}

}  // namespace

ncclResult_t launchOnCommunicator(CommContext* ctx, const CollCall& call, Algorithm* algorithm, int algorithmId,
                                  uint64_t sequence, const RecordTicket* recordedBefore) {
  const ncclResult_t result = launchOnDevice(ctx, call, algorithm, algorithmId, sequence);
  if (ctx->trace) {
    FlightRecorder& recorder = ctx->trace->recorder();
    const bool captured = result == ncclSuccess ? ctx->launchOrder.lastLaunchCaptured()
                                                : LaunchOrder::streamCapturing(call.stream);
    const RecordTicket ticket =
        recordedBefore != nullptr
            ? *recordedBefore
            : recorder.record(tracedLaunch(call, *algorithm, sequence, threadState().groupDepth > 0, captured));
    if (result != ncclSuccess) recorder.markLaunchFailed(ticket);
  }
  if (result != ncclSuccess) return result;
  ctx->stats.countIntercepted(algorithm->name());
  ctx->lastAlgorithm.store(algorithm->name(), std::memory_order_relaxed);
  return ncclSuccess;
}

}  // namespace flashccl
