// Whether a communicator's own flight recorder gives the watchdog a reason to ask the other
// ranks: a call known to wait at least the timeout, or (for calls whose progress nobody follows)
// a last call that old.
#pragma once

#include <cstdint>

#include "trace/progress_snapshot.h"

namespace flashccl {

struct Suspicion {
  enum class Kind {
    kNone,
    kIdle,     // the newest call is untracked and older than the timeout: maybe done, maybe not
    kWaiting,  // a call known not to have completed is older than the timeout
  };
  Kind kind = Kind::kNone;
  uint64_t seq = 0;        // kWaiting: the oldest such call's sequence number
  int64_t waitedNs = 0;    // and how long it has waited
  uint64_t recordId = 0;   // the call it is about
};

Suspicion suspect(const ProgressSnapshot& own, int64_t timeoutNs);

}  // namespace flashccl
