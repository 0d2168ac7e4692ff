// The path of one collective call: side table -> Selector -> Algorithm::launch, or the real NCCL.
// Everything here is on the hot path (docs/design.md, "Hot path").
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "base/coll_call.h"

namespace flashccl {

// Runs `call` with our algorithm or forwards it to the real NCCL, counting which. Inside a
// group (ncclGroupStart) our launches wait for the outermost ncclGroupEnd (grouped_calls.h), as
// NCCL's own do.
ncclResult_t dispatchCollective(const CollCall& call);

// Forwards `call` unchanged to the real NCCL (ncclSystemError if there is none).
ncclResult_t forwardCollective(const CollCall& call);

// A call that always goes to NCCL, as the application made it.
struct ForwardedCall {
  const char* name;  // "Broadcast", "Reduce", "AlltoAll", "Gather", "Scatter", "Send", "Recv"
  ncclComm_t comm;
  size_t count;
  ncclDataType_t dtype;
  ncclRedOp_t op;    // Reduce only
  int root;          // Broadcast, Reduce, Gather, Scatter; the peer for Send and Recv
  cudaStream_t stream;
  bool collective;   // false for Send and Recv
};

// Before a call that always goes to NCCL: the communicator's error if our kernels found its
// ranks disagreeing (every later call fails, as NCCL fails a communicator after an asynchronous
// error), else ncclSuccess after counting a collective in the communicator's sequence.
// Point-to-point calls are not counted: ranks that take no part make no call.
ncclResult_t beforeForwardedCall(const ForwardedCall& call);

}  // namespace flashccl
