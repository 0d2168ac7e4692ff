// Thread-local call nesting: group depth, calls into the real NCCL, communicators waiting for the
// outermost ncclGroupEnd.
//
// ncclGroupStart/End nest per thread. Communicators created inside a group cannot be used until
// the outermost ncclGroupEnd; we remember them here and set them up there. Calls NCCL makes into
// its own exports while we are inside a forwarded call are recognised by forwardDepth and passed
// through untouched.
#pragma once

#include <vector>

#include <nccl.h>

namespace flashccl {

struct ThreadState {
  int groupDepth = 0;
  int forwardDepth = 0;                  // > 0 while a call into the real NCCL is in progress
  std::vector<ncclComm_t> createdInGroup; // comms to set up at the outermost ncclGroupEnd
};

ThreadState& threadState();

// RAII marker around every call into the real NCCL.
class ForwardScope {
 public:
  ForwardScope() { ++threadState().forwardDepth; }
  ~ForwardScope() { --threadState().forwardDepth; }
  ForwardScope(const ForwardScope&) = delete;
  ForwardScope& operator=(const ForwardScope&) = delete;
};

inline bool isNestedCall() { return threadState().forwardDepth > 0; }

}  // namespace flashccl
