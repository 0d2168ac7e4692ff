// Whether flashccl may run a call made through ncclAllReduceConfig, ncclAllGatherConfig or
// ncclReduceScatterConfig (NCCL 2.32's per-call ncclCollConfig_t) on its own kernels, exactly as
// the plain call (docs/design.md, "Per-call configs").
#pragma once

#include "base/nccl_newer_api.h"

namespace flashccl {

// nullptr when the config asks nothing flashccl cannot honour: no config, a profiler tag
// (flashccl's kernels are not profiler events; the tag changes nothing about execution), vendor
// extensions (NCCL ignores them too), CTA bounds every grid of flashccl's respects (at most
// `maxGridBlocks` blocks, at least one). Otherwise why the call goes to NCCL: an
// algorithm-selection string, bounds flashccl's grids may not meet, a cluster size, a CTA
// policy, a launch-completion event, or a struct NCCL_COLLCONFIG_INITIALIZER did not make (NCCL
// answers that one with its own error). Reads no field past config->size: a config compiled
// against an older header is read only as far as it goes.
const char* collConfigForwardReason(const ncclCollConfig_t* config, int maxGridBlocks);

}  // namespace flashccl
