// The first round of set-up: which node every rank is on. Each rank publishes its node identity
// (topo/host_identity.h: FLASHCCL_NODE_ID, else its OS instance) through the real NCCL, and every
// rank groups the same list the same way (topo/node_grouping.h), so all of them reach the same
// verdict on what can run: one node, nodes of equal size, or NCCL alone.
#pragma once

#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

// Fills CommContext::nodes for every context in `ctxs` (one NCCL group). On a one-node
// communicator whose ranks all see the same /dev/shm as the same user, it also opens rank 0's
// node board (CommContext::setupBoard): the later set-up rounds go through host memory, not
// through a kernel on every rank. Returns the real NCCL's error, if the exchange failed.
ncclResult_t exchangeNodes(const std::vector<CommContext*>& ctxs);

// Closes the set-up boards of `ctxs`; rank 0 removes its board's name. When set-up ends, whatever
// its verdict.
void closeSetupBoards(const std::vector<CommContext*>& ctxs);

}  // namespace flashccl
