// The library's CompletionProbe: two CUDA events per ring slot, recorded on the call's stream
// around a forwarded call and queried by the watchdog thread (cudaEventQuery never blocks).
#pragma once

#include <cstddef>
#include <memory>

#include "trace/completion_probe.h"

namespace flashccl {

// `cudaDev`: the communicator's device. Events are created there on first use of a slot.
std::unique_ptr<CompletionProbe> makeCudaEventProbe(size_t slots, int cudaDev);

}  // namespace flashccl
