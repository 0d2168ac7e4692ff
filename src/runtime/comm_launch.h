// Launches one of our algorithms for one call on a communicator that is set up: on the
// communicator's device, after the communicator's previous kernel, with the call header its
// peers will compare. Shared by the immediate path (dispatch) and the grouped one.
#pragma once

#include <cstdint>

#include <nccl.h>

#include "base/coll_call.h"
#include "trace/trace_call.h"

namespace flashccl {

class Algorithm;
class CommContext;
struct RecordTicket;

// `sequence`: the call's place among the communicator's collective calls. The call goes into the
// flight recorder once launched, or as failed when its launch fails (its peers wait for it, and
// their hang verdict then says why). `recordedBefore`: the caller recorded it already (a grouped
// call across nodes, recorded in call order at the group's end but launched after NCCL's group:
// grouped_calls.h).
ncclResult_t launchOnCommunicator(CommContext* ctx, const CollCall& call, Algorithm* algorithm, int algorithmId,
                                  uint64_t sequence, const RecordTicket* recordedBefore = nullptr);

// What the flight recorder keeps of our call `sequence` run by `algorithm` (its kernels stamp the
// sequence numbers they start and complete).
TraceCall tracedLaunch(const CollCall& call, const Algorithm& algorithm, uint64_t sequence, bool grouped,
                       bool captured);

}  // namespace flashccl
