// The path of one collective call: side table -> Selector -> Algorithm::launch, or the real NCCL.
// Everything here is on the hot path (docs/design.md, "Hot path").
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "base/coll_call.h"
#include "base/nccl_newer_api.h"
#include "trace/trace_call.h"

namespace flashccl {

// Runs `call` with our algorithm or forwards it to the real NCCL, counting which. Inside a
// group (ncclGroupStart) our launches wait for the outermost ncclGroupEnd (grouped_calls.h), as
// NCCL's own do. `config`: the per-call config of ncclAllReduceConfig & co. (NCCL 2.32), null
// for the plain call; a config flashccl cannot honour sends the call to NCCL's nccl*Config with
// the reason (runtime/coll_config.h).
ncclResult_t dispatchCollective(const CollCall& call, const ncclCollConfig_t* config = nullptr);

// Forwards `call` unchanged to the real NCCL (ncclSystemError if there is none): its nccl*Config
// form with `config` when there is one.
ncclResult_t forwardCollective(const CollCall& call, const ncclCollConfig_t* config = nullptr);

// A call that always goes to NCCL, as the application made it.
struct ForwardedCall {
  TraceKind kind;    // Broadcast, Reduce, AllToAll, Gather, Scatter, Send, Recv
  ncclComm_t comm;
  size_t count;
  ncclDataType_t dtype;
  ncclRedOp_t op;    // Reduce only (else ncclSum, not recorded)
  int root;          // Broadcast, Reduce, Gather, Scatter; the peer for Send and Recv; else -1
  cudaStream_t stream;
};

// Runs `forward` (the call into the real NCCL) for `call`: first the communicator's error if our
// kernels found its ranks disagreeing (every later call fails, as NCCL fails a communicator
// after an asynchronous error); then the call takes its place in the communicator's sequence
// (collectives only: ranks that take no part in a send or receive make no call) and its flight
// recorder.
template <typename Forward>
ncclResult_t runForwardedCall(const ForwardedCall& call, Forward&& forward);

// The two halves of runForwardedCall.
struct ForwardedTicket {
  void* ctx = nullptr;  // the CommContext, when it follows the call on the GPU (FLASHCCL_TRACE=full)
  uint64_t recordId = 0;
  uint64_t seq = 0;
};
ncclResult_t beforeForwardedCall(const ForwardedCall& call, ForwardedTicket* ticket);
void afterForwardedCall(const ForwardedTicket& ticket, cudaStream_t stream);

template <typename Forward>
ncclResult_t runForwardedCall(const ForwardedCall& call, Forward&& forward) {
  ForwardedTicket ticket;
  if (const ncclResult_t broken = beforeForwardedCall(call, &ticket); broken != ncclSuccess) return broken;
  const ncclResult_t result = forward();
  afterForwardedCall(ticket, call.stream);
  return result;
}

}  // namespace flashccl
