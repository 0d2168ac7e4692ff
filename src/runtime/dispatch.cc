#include "runtime/dispatch.h"

#include "algo/algorithm.h"
#include "runtime/comm_context.h"
#include "runtime/comm_lifecycle.h"
#include "runtime/comm_table.h"
#include "base/config.h"
#include "runtime/device_scope.h"
#include "base/thread_state.h"
#include "base/log.h"
#include "base/real_nccl.h"
#include "base/result_string.h"
#include "select/selector.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

namespace {

const char* const kNcclName = "NCCL";

ncclResult_t forwardCounted(const CollCall& call, CommContext* ctx, const char* why) {
  ctx->stats.countForwarded(why);
  ctx->lastAlgorithm.store(kNcclName, std::memory_order_relaxed);
  return forwardCollective(call);
}

// A non-blocking communicator becomes usable at some point after its init returned
// ncclInProgress; the first collective after that sets it up. Only where set-up is safe: outside
// a group (set-up runs NCCL collectives of its own) and outside a capture (it must not become
// part of the app's graph).
bool trySetUpLate(CommContext* ctx, cudaStream_t stream) {
  if (threadState().groupDepth > 0) return false;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamIsCapturing(stream, &capture);
  if (err != cudaSuccess) {
    cudaGetLastError();
    // Without a usable CUDA runtime nothing can be capturing; anything else: assume it is.
    if (err != cudaErrorNoDevice && err != cudaErrorInsufficientDriver) return false;
  }
  if (capture != cudaStreamCaptureStatusNone) return false;
  std::vector<CommContext*> one{ctx};
  if (activateCommunicators(one) != ncclSuccess) {
    ctx->disable("late set-up failed");
  }
  return ctx->state() != CommContext::State::kPending;
}

}  // namespace

ncclResult_t forwardCollective(const CollCall& call) {
  const RealNccl* real = realNccl();
  if (real == nullptr) return ncclSystemError;
  ForwardScope scope;
  switch (call.kind) {
    case CollKind::kAllReduce:
      if (!real->ncclAllReduce) return missingRealFunction("ncclAllReduce");
      return real->ncclAllReduce(call.send, call.recv, call.count, call.dtype, call.op, call.comm,
                                 call.stream);
    case CollKind::kAllGather:
      if (!real->ncclAllGather) return missingRealFunction("ncclAllGather");
      return real->ncclAllGather(call.send, call.recv, call.count, call.dtype, call.comm,
                                 call.stream);
    case CollKind::kReduceScatter:
      if (!real->ncclReduceScatter) return missingRealFunction("ncclReduceScatter");
      return real->ncclReduceScatter(call.send, call.recv, call.count, call.dtype, call.op,
                                     call.comm, call.stream);
  }
  return ncclInvalidArgument;
}

ncclResult_t dispatchCollective(const CollCall& call) {
  // NCCL calling its own export, or pure pass-through: no side-table work at all.
  if (isNestedCall() || Config::get().disable) return forwardCollective(call);
  CommContext* ctx = CommTable::instance().find(call.comm);
  if (ctx == nullptr) return forwardCollective(call);
  if (call.count == 0) return forwardCounted(call, ctx, reason::kZeroCount);
  // Bad arguments get NCCL's own checks and error messages: forward, never launch on them.
  if (call.send == nullptr || call.recv == nullptr || dtypeSize(call.dtype) == 0) {
    return forwardCounted(call, ctx, reason::kInvalidArgument);
  }

  CommContext::State state = ctx->state();
  if (state == CommContext::State::kPending) {
    if (ctx->blocking || !trySetUpLate(ctx, call.stream)) {
      return forwardCounted(call, ctx, reason::kNotReady);
    }
    state = ctx->state();
  }
  const Selector* selector = ctx->selector();
  if (state != CommContext::State::kReady || selector == nullptr) {
    return forwardCounted(call, ctx, reason::kDisabled);
  }

  // A kernel found that the ranks disagreed on a call: the communicator's sequences no longer
  // match between ranks, so nothing more runs on it (as NCCL after an asynchronous error).
  if (const ncclResult_t broken = ctx->asyncError(); broken != ncclSuccess) {
    if (!ctx->callErrorReported.exchange(true)) {
      FCCL_WARN("comm %p rank %d: ranks called different collectives, counts, types or ops at the same "
                "point; the communicator is unusable (%s)", static_cast<void*>(call.comm), ctx->rank,
                resultString(broken));
    }
    return broken;
  }

  Plan plan = selector->choose(call, *ctx);
  if (plan.algorithm == nullptr) {
    return forwardCounted(call, ctx, plan.reason ? plan.reason : reason::kNoRow);
  }

  ncclResult_t result;
  {
    // Our kernels run on the communicator's device, whatever the caller's current device is.
    DeviceScope onCommDevice(ctx->cudaDev, ctx->currentContextHint);
    if (!onCommDevice.ok()) return forwardCounted(call, ctx, reason::kDisabled);
    // A stream of another GPU would take our kernel there (stream_device.h). NCCL fails such a
    // call with ncclUnhandledCudaError ("invalid resource handle"); so do we, saying why. Not
    // forwarded: if NCCL ran it on this rank while the peers ran our kernels, their next calls
    // would pair up wrongly.
    if (!ctx->streamDevice.onCommDevice(call.stream, onCommDevice.context())) {
      FCCL_WARN("comm %p rank %d: %s on stream %p, which belongs to another device (or CUDA context) "
                "than the communicator's device %d; nothing was launched", static_cast<void*>(call.comm),
                ctx->rank, collKindName(call.kind), static_cast<void*>(call.stream), ctx->cudaDev);
      return ncclUnhandledCudaError;
    }
    if (PeerMemory* peers = ctx->peers()) peers->stampCall(++ctx->launches, callSignature(call));
    result = ctx->orderAfterPreviousLaunch(call.stream);
    if (result == ncclSuccess) result = plan.algorithm->launch(call, *ctx);
  }
  if (result != ncclSuccess) {
    FCCL_WARN("comm %p rank %d: %s %s failed to launch: %d", static_cast<void*>(call.comm),
              ctx->rank, plan.algorithm->name(), collKindName(call.kind), static_cast<int>(result));
    return result;
  }
  ctx->stats.countIntercepted(plan.algorithm->name());
  ctx->lastAlgorithm.store(plan.algorithm->name(), std::memory_order_relaxed);
  return ncclSuccess;
}

}  // namespace flashccl
