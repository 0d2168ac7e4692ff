// Collective calls made inside ncclGroupStart/End, as NCCL treats them: nothing runs before the
// outermost ncclGroupEnd, and ncclGroupSimulateEnd runs nothing. Our launches wait here, in call
// order, beside markers for the calls forwarded into NCCL's own group; at the outermost end each
// call gets its place in its communicator's sequence (the sequence a simulated group never
// advances on any rank) and ours are launched, before NCCL ends its group.
#pragma once

#include <nccl.h>

#include "base/coll_call.h"

namespace flashccl {

class Algorithm;
class CommContext;

// Our call, to be launched at the outermost ncclGroupEnd.
void queueGroupedLaunch(CommContext* ctx, const CollCall& call, Algorithm* algorithm, int algorithmId);
// A collective forwarded into NCCL's group: counted in the sequence at the end.
void queueGroupedForward(CommContext* ctx);

// The outermost ncclGroupEnd, before the real one: launches what was queued. Returns the first
// launch error (the group end returns it, as NCCL reports a group's errors there).
ncclResult_t runGroupedCalls();
// ncclGroupSimulateEnd, or a group end that fails before anything ran: forgets the queue.
void dropGroupedCalls();

}  // namespace flashccl
