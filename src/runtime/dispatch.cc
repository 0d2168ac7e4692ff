#include "runtime/dispatch.h"

#include <algorithm>

#include "algo/algorithm.h"
#include "base/config.h"
#include "base/log.h"
#include "base/real_nccl.h"
#include "base/thread_state.h"
#include "runtime/coll_config.h"
#include "runtime/comm_context.h"
#include "runtime/comm_launch.h"
#include "runtime/comm_lifecycle.h"
#include "runtime/comm_table.h"
#include "runtime/grouped_calls.h"
#include "transport/p2p/peer_memory.h"
#include "select/selector.h"

namespace flashccl {

namespace {

const char* const kNcclName = "NCCL";

// Where one call goes: one of our algorithms, or NCCL with the reason.
struct Route {
  Algorithm* algorithm = nullptr;
  int algorithmId = 0;
  const char* reason = nullptr;
};

bool isCapturing(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t err = cudaStreamIsCapturing(stream, &capture);
  if (err != cudaSuccess) {
    cudaGetLastError();
    // Without a usable CUDA runtime nothing can be capturing; anything else: assume it is.
    return err != cudaErrorNoDevice && err != cudaErrorInsufficientDriver;
  }
  return capture != cudaStreamCaptureStatusNone;
}

// A non-blocking communicator is set up at its first collective call, which is the same point of
// the call sequence on every rank, never at whatever moment NCCL happens to finish its init on
// this rank: set-up runs collectives of its own, and a rank that started them while its peers
// forwarded the call would pair NCCL's operations wrongly. Inside a group the call goes to NCCL
// and set-up follows at the outermost ncclGroupEnd; inside a capture the call goes to NCCL and the
// next call outside one sets the communicator up (set-up must not become part of the graph).
bool setUpAtFirstCall(CommContext* ctx, cudaStream_t stream) {
  ThreadState& thread = threadState();
  if (thread.groupDepth > 0) {
    if (std::find(thread.createdInGroup.begin(), thread.createdInGroup.end(), ctx->comm) ==
        thread.createdInGroup.end()) {
      thread.createdInGroup.push_back(ctx->comm);
    }
    return false;
  }
  if (isCapturing(stream)) return false;
  std::vector<CommContext*> one{ctx};
  if (activateCommunicators(one, /*waitForNccl=*/true) != ncclSuccess) ctx->disable("set-up at the first call failed");
  return ctx->state() == CommContext::State::kReady;
}

Route routeCall(const CollCall& call, CommContext* ctx) {
  Route route;
  if (call.count == 0) {
    route.reason = reason::kZeroCount;
    return route;
  }
  // Bad arguments get NCCL's own checks and error messages: forward, never launch on them.
  if (call.send == nullptr || call.recv == nullptr || dtypeSize(call.dtype) == 0) {
    route.reason = reason::kInvalidArgument;
    return route;
  }
  if (ctx->state() == CommContext::State::kPending && !setUpAtFirstCall(ctx, call.stream)) {
    route.reason = ctx->state() == CommContext::State::kPending ? reason::kNotReady : reason::kDisabled;
    return route;
  }
  const Selector* selector = ctx->selector();
  if (ctx->state() != CommContext::State::kReady || selector == nullptr) {
    route.reason = reason::kDisabled;
    return route;
  }
  // On a communicator still on its small buffer, a call above FLASHCCL_SMALL_CALL_BYTES is routed
  // on the full buffer it would run on (a row whose algorithm needs the larger slots must not
  // hand it to a later row); a small call is routed alike on both buffers. When the route takes
  // it, or a small call's algorithm streams through chunk slots, every rank grows the buffer at
  // this call or every rank forwards it (buffer_growth.h).
  const bool large = ctx->buffer.callNeedsGrowth(call, ctx->nranks);
  const CommView* grown = large ? ctx->buffer.grownView(ctx) : nullptr;
  Plan plan = selector->choose(call, grown ? *grown : static_cast<const CommView&>(*ctx));
  if (ctx->buffer.stage() != BufferGrowth::Stage::kFull && plan.algorithm != nullptr &&
      (large || plan.algorithm->usesChunkSlots(call, *ctx))) {
    const char* why = ctx->buffer.growForCall(ctx, threadState().groupDepth > 0, isCapturing(call.stream));
    if (why != nullptr) {
      route.reason = why;
      return route;
    }
    plan = selector->choose(call, *ctx);
  }
  route.algorithm = plan.algorithm;
  route.algorithmId = plan.algorithmId;
  route.reason = plan.reason ? plan.reason : reason::kNoRow;
  return route;
}

// What the flight recorder keeps of a forwarded call.
TraceCall tracedForward(const ForwardedCall& call) {
  TraceCall t;
  t.kind = call.kind;
  t.dtype = recordedDtype(call.dtype);
  t.op = recordedOp(call.kind, static_cast<int32_t>(call.op));
  t.peer = call.root;
  t.count = call.count;
  t.stream = call.stream;
  t.grouped = threadState().groupDepth > 0;
  return t;
}

ncclResult_t forwardCounted(const CollCall& call, const ncclCollConfig_t* config, CommContext* ctx,
                            const char* why) {
  ctx->stats.countForwarded(why);
  ctx->lastAlgorithm.store(kNcclName, std::memory_order_relaxed);
  if (!ctx->trace) return forwardCollective(call, config);
  TraceCall traced = traceCallOf(call);
  const RecordTicket ticket = ctx->trace->recorder().record(traced);
  FlightRecorder& recorder = ctx->trace->recorder();
  if (recorder.followsForwardedCalls()) recorder.beforeForwarded(ticket, call.stream);
  const ncclResult_t result = forwardCollective(call, config);
  if (recorder.followsForwardedCalls()) recorder.afterForwarded(ticket, call.stream);
  return result;
}

// The nccl*Config forms, for a call that came with a per-call config: NCCL gets it untouched.
ncclResult_t callRealCollectiveWithConfig(const RealNccl* real, const CollCall& call,
                                          const ncclCollConfig_t* config) {
  switch (call.kind) {
    case CollKind::kAllReduce:
      if (!real->ncclAllReduceConfig) return missingRealFunction("ncclAllReduceConfig");
      return real->ncclAllReduceConfig(call.send, call.recv, call.count, call.dtype, call.op,
                                       call.comm, call.stream, config);
    case CollKind::kAllGather:
      if (!real->ncclAllGatherConfig) return missingRealFunction("ncclAllGatherConfig");
      return real->ncclAllGatherConfig(call.send, call.recv, call.count, call.dtype, call.comm,
                                       call.stream, config);
    case CollKind::kReduceScatter:
      if (!real->ncclReduceScatterConfig) return missingRealFunction("ncclReduceScatterConfig");
      return real->ncclReduceScatterConfig(call.send, call.recv, call.count, call.dtype, call.op,
                                           call.comm, call.stream, config);
  }
  return ncclInvalidArgument;
}

ncclResult_t callRealCollective(const CollCall& call, const ncclCollConfig_t* config) {
  const RealNccl* real = realNccl();
  if (real == nullptr) return ncclSystemError;
  ForwardScope scope;
  if (config != nullptr) return callRealCollectiveWithConfig(real, call, config);
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

}  // namespace

ncclResult_t forwardCollective(const CollCall& call, const ncclCollConfig_t* config) {
  const ncclResult_t result = callRealCollective(call, config);
  if (result != ncclSuccess && result != ncclInProgress) noteNcclError();
  return result;
}

ncclResult_t dispatchCollective(const CollCall& call, const ncclCollConfig_t* config) {
  // NCCL calling its own export, or pure pass-through: no side-table work at all.
  if (isNestedCall() || Config::get().disable) return forwardCollective(call, config);
  CommContext* ctx = CommTable::instance().find(call.comm);
  if (ctx == nullptr) return forwardCollective(call, config);
  // Our kernels found that the ranks disagreed on a call: their sequences no longer match, so
  // nothing more runs on this communicator (as NCCL after an asynchronous error).
  if (const ncclResult_t broken = ctx->asyncError(); broken != ncclSuccess) return broken;

  Route route = routeCall(call, ctx);
  if (config != nullptr && route.algorithm != nullptr) {
    // Every grid of flashccl's fits on the GPU at once (launch_common.h): at most its resident blocks.
    const PeerMemory* peers = ctx->peers();
    const char* why = collConfigForwardReason(config, peers ? peers->device().maxResidentBlocks : 0);
    if (why != nullptr) route = Route{nullptr, 0, why};
  }
  if (threadState().groupDepth > 0) {
    if (route.algorithm != nullptr) {
      queueGroupedLaunch(ctx, call, route.algorithm, route.algorithmId);
      return ncclSuccess;
    }
    // Into NCCL's group now; its place in the sequence (and the recorder) at the group's end.
    TraceCall traced = traceCallOf(call);
    traced.grouped = true;
    queueGroupedForward(ctx, traced);
    ctx->stats.countForwarded(route.reason);
    ctx->lastAlgorithm.store(kNcclName, std::memory_order_relaxed);
    return forwardCollective(call, config);
  }
  const uint64_t sequence = ++ctx->callSequence;
  if (route.algorithm == nullptr) return forwardCounted(call, config, ctx, route.reason);
  return launchOnCommunicator(ctx, call, route.algorithm, route.algorithmId, sequence);
}

ncclResult_t beforeForwardedCall(const ForwardedCall& call, ForwardedTicket* ticket) {
  if (isNestedCall() || Config::get().disable) return ncclSuccess;
  CommContext* ctx = CommTable::instance().find(call.comm);
  if (ctx == nullptr) return ncclSuccess;
  if (const ncclResult_t broken = ctx->asyncError(); broken != ncclSuccess) return broken;
  const bool collective = isCollective(call.kind);
  const TraceCall traced = tracedForward(call);
  if (threadState().groupDepth > 0 && collective) {
    queueGroupedForward(ctx, traced);  // counted and recorded at the group's end
    return ncclSuccess;
  }
  if (collective) ++ctx->callSequence;
  if (!ctx->trace) return ncclSuccess;
  FlightRecorder& recorder = ctx->trace->recorder();
  const RecordTicket recorded = recorder.record(traced);
  // Followed on the GPU only outside a group: inside one, NCCL launches at the group's end.
  if (recorder.followsForwardedCalls() && !traced.grouped) {
    recorder.beforeForwarded(recorded, call.stream);
    *ticket = ForwardedTicket{ctx, recorded.recordId, recorded.seq};
  }
  return ncclSuccess;
}

void afterForwardedCall(const ForwardedTicket& ticket, cudaStream_t stream) {
  if (ticket.ctx == nullptr) return;
  CommContext* ctx = static_cast<CommContext*>(ticket.ctx);
  ctx->trace->recorder().afterForwarded(RecordTicket{ticket.recordId, ticket.seq}, stream);
}

}  // namespace flashccl
