// The last part of set-up for communicators across nodes, once every node's peer memory is armed:
// the rails, the inter-node communicators the hierarchical algorithms run NCCL on (one per local
// index: rank l of every node). Every rank makes its rail with the real NCCL's ncclCommSplit
// (color: its local rank; key: its node; topo/node_grouping.h's RailPlan), called directly so our
// own export does not see it, all of one thread's communicators in one NCCL group; a rank whose
// allocation failed still splits, since the split is collective. The rails are blocking
// communicators whatever the parent is: the algorithms enqueue NCCL calls between event records
// and need them enqueued when the call returns. A non-blocking parent is waited for here, at the
// same point of the call sequence on every rank (set-up runs there). Then every rank says whether
// it has its rail and staging, and all agree: every rank gets its hierarchy, or none does.
#pragma once

#include <string>
#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

// NCCL's kernels on a rail take at most this many thread blocks (config.maxCTAs), so they fit on
// the GPU beside our node phases (algo/hierarchy_plan.h, hierarchyLanes).
constexpr int kRailMaxCtas = 16;

// Makes and attaches the rails of every context in `ctxs` (all across nodes, with their node
// peer memory attached). (*failures)[i] is "" or why ctxs[i] got none, the same words on every
// rank; the return code is an error only when the real NCCL failed in the agreement round.
ncclResult_t setUpRails(const std::vector<CommContext*>& ctxs, std::vector<std::string>* failures);

}  // namespace flashccl
