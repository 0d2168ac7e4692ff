// Collective calls made inside ncclGroupStart/End, as NCCL treats them: nothing runs before the
// outermost ncclGroupEnd, and ncclGroupSimulateEnd runs nothing. Our launches wait here, in call
// order, beside markers for the calls forwarded into NCCL's own group; at the outermost end each
// call gets its place in its communicator's sequence (the sequence a simulated group never
// advances on any rank) and ours are launched, before NCCL ends its group.
#pragma once

#include <nccl.h>

#include "base/coll_call.h"
#include "trace/trace_call.h"

namespace flashccl {

class Algorithm;
class CommContext;

// Our call, to be launched at the outermost ncclGroupEnd.
void queueGroupedLaunch(CommContext* ctx, const CollCall& call, Algorithm* algorithm, int algorithmId);
// A collective forwarded into NCCL's group: counted in the sequence, and recorded, at the end.
void queueGroupedForward(CommContext* ctx, const TraceCall& call);

// The outermost ncclGroupEnd, before the real one: launches what was queued. Returns the first
// launch error (the group end returns it, as NCCL reports a group's errors there). Calls of
// algorithms across nodes only get their sequence numbers and their flight-recorder entries here
// (in call order, like the rest of the group): their own NCCL calls would join NCCL's group and
// wait for its end, so they launch after it (runGroupedCallsAcrossNodes).
ncclResult_t runGroupedCalls();
// The outermost ncclGroupEnd, after the real one: launches the calls across nodes that
// runGroupedCalls numbered. Returns the first launch error.
ncclResult_t runGroupedCallsAcrossNodes();
// ncclGroupSimulateEnd: forgets the queue (nothing is launched).
void dropGroupedCalls();

}  // namespace flashccl
