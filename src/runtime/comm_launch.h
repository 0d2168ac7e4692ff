// Launches one of our algorithms for one call on a communicator that is set up: on the
// communicator's device, after the communicator's previous kernel, with the call header its
// peers will compare. Shared by the immediate path (dispatch) and the grouped one.
#pragma once

#include <cstdint>

#include <nccl.h>

#include "base/coll_call.h"

namespace flashccl {

class Algorithm;
class CommContext;

// `sequence`: the call's place among the communicator's collective calls.
ncclResult_t launchOnCommunicator(CommContext* ctx, const CollCall& call, Algorithm* algorithm, int algorithmId,
                                  uint64_t sequence);

}  // namespace flashccl
