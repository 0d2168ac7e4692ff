// CommContexts follow the real communicators' lifecycle: registered right after NCCL creates a
// communicator, activated (identity read, then set up) as soon as NCCL says it is ready, removed on
// destroy/abort. The shim's init/group exports and dispatch's lazy set-up share these steps.
#pragma once

#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

// Whether a communicator created with `config` blocks: NCCL_COMM_BLOCKING, else config->blocking,
// else the parent's (ncclCommSplit/Shrink with a NULL config), else blocking. It decides whether
// set-up waits for NCCL to finish the communicator (setup_exchange.cc).
bool isBlockingConfig(const ncclConfig_t* config, const CommContext* parent);

// The real NCCL created `comms` (null entries skipped) and returned `result`. Registers a Pending
// context for each (FLASHCCL_DISABLE too: its ranks still take part in the set-up exchange), then: sets them up together now (ncclSuccess,
// outside a group); remembers them for the outermost ncclGroupEnd (inside a group); or leaves them
// Pending (ncclInProgress, set up lazily by dispatch). Returns the set-up error, if any, that
// the init call must return instead of ncclSuccess.
ncclResult_t onCommunicatorsCreated(const std::vector<ncclComm_t>& comms, bool blocking,
                                    ncclResult_t result);

// The outermost ncclGroupEnd returned `result`: sets up the communicators created in the group,
// and the non-blocking ones whose first call was in it, waiting for NCCL to finish them
// (ncclInProgress included: whether NCCL is done yet differs between ranks, the point of set-up
// must not). Returns the set-up error, if any.
ncclResult_t onOutermostGroupEnd(ncclResult_t result);

// For every Pending context whose communicator NCCL reports ready (with `waitForNccl`: once it
// does): reads rank, size and device from NCCL, then sets them all up together
// (setUpCommunicators). Others stay Pending; one whose communicator reports an error is disabled.
ncclResult_t activateCommunicators(const std::vector<CommContext*>& ctxs, bool waitForNccl);

}  // namespace flashccl
