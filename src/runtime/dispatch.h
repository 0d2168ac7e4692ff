// The path of one intercepted collective: side table -> Selector -> Algorithm::launch, or the
// real NCCL. Everything here is on the hot path (DESIGN §2.5).
#pragma once

#include <nccl.h>

#include "base/coll_call.h"

namespace flashccl {

// Runs `call` with our algorithm or forwards it to the real NCCL, counting which.
ncclResult_t dispatchCollective(const CollCall& call);

// Forwards `call` unchanged to the real NCCL (ncclSystemError if there is none).
ncclResult_t forwardCollective(const CollCall& call);

}  // namespace flashccl
