// Setting a communicator up for our algorithms: which node each rank is on, selection, peer
// memory over each node, P2P check and, for communicators across nodes, the rails.
//
// Runs where it is safe (docs/design.md, "The path of one call"): right after a blocking init returns outside a
// group; at the outermost ncclGroupEnd for comms created inside a group; at the first collective
// call of a non-blocking comm, waiting for NCCL to finish it. Never inside a user's CUDA-graph capture. Several
// communicators driven by one thread (ncclCommInitAll, grouped inits) are set up together,
// because their handle exchange must be one NCCL group.
//
// Failure never fails the application: the contexts are disabled, saying why, and every call on
// them is forwarded. All ranks reach the same verdict (the exchange includes each rank's result).
#pragma once

#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

// Sets up every context in `ctxs` (all Pending). Returns ncclSuccess even when it had to disable
// them; an error only when the real NCCL itself failed during the exchange (the caller returns it).
ncclResult_t setUpCommunicators(const std::vector<CommContext*>& ctxs);

}  // namespace flashccl
