// A communicator context that only describes: what a set-up communicator of its size on `nnodes`
// nodes would have (the node's peer memory layout; across nodes, the hierarchy's layout and
// staging size), nothing allocated and nothing to launch on. `flashccl plan` attaches it so
// every algorithm's supports() answers exactly as on a live communicator.
#pragma once

namespace flashccl {

class CommContext;

// For rank 0 of `ctx->nranks` ranks laid node by node on `nnodes` nodes. Nothing is attached when
// the ranks do not split evenly into nodes of 2 to 8 (set-up would arm nothing there either).
void describeCommunicator(CommContext* ctx, int nnodes);

}  // namespace flashccl
