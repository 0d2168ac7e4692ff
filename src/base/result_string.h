// NCCL's text for each ncclResult_t, for when there is no real NCCL to ask (ncclGetErrorString
// must work even then: it is how the app learns why every other call failed).
#pragma once

#include <nccl.h>

namespace flashccl {

const char* resultString(ncclResult_t result);

}  // namespace flashccl
