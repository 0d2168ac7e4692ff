#include "trace/suspicion.h"

namespace flashccl {

Suspicion suspect(const ProgressSnapshot& own, int64_t timeoutNs) {
  Suspicion suspicion;
  for (const SnapshotCall& call : own.calls) {
    if (isPending(call.state) && call.enqueuedAgoNs >= timeoutNs) {
      suspicion.kind = Suspicion::Kind::kWaiting;
      suspicion.seq = call.seq;
      suspicion.waitedNs = call.enqueuedAgoNs;
      suspicion.recordId = call.recordId;
      return suspicion;
    }
  }
  for (auto it = own.calls.rbegin(); it != own.calls.rend(); ++it) {
    if (isGroupMark(it->call.kind)) continue;
    if (it->state == CallState::kUntracked && it->enqueuedAgoNs >= timeoutNs) {
      suspicion.kind = Suspicion::Kind::kIdle;
      suspicion.recordId = it->recordId;
    }
    break;
  }
  return suspicion;
}

}  // namespace flashccl
