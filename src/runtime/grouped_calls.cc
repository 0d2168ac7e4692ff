#include "runtime/grouped_calls.h"

#include <vector>

#include "runtime/comm_context.h"
#include "runtime/comm_launch.h"

namespace flashccl {

namespace {

struct GroupedCall {
  CommContext* ctx;
  CollCall call;
  Algorithm* algorithm;  // nullptr: a call forwarded into NCCL's group (only counted)
  int algorithmId;
};

// Per thread, as NCCL's groups are. Kept between groups so the hot path reuses its memory.
std::vector<GroupedCall>& queue() {
  static thread_local std::vector<GroupedCall> calls;
  return calls;
}

}  // namespace

void queueGroupedLaunch(CommContext* ctx, const CollCall& call, Algorithm* algorithm, int algorithmId) {
  queue().push_back({ctx, call, algorithm, algorithmId});
}

void queueGroupedForward(CommContext* ctx) { queue().push_back({ctx, CollCall{}, nullptr, 0}); }

ncclResult_t runGroupedCalls() {
  std::vector<GroupedCall>& calls = queue();
  ncclResult_t first = ncclSuccess;
  for (const GroupedCall& grouped : calls) {
    const uint64_t sequence = ++grouped.ctx->callSequence;
    if (grouped.algorithm == nullptr) continue;
    const ncclResult_t result =
        launchOnCommunicator(grouped.ctx, grouped.call, grouped.algorithm, grouped.algorithmId, sequence);
    if (first == ncclSuccess) first = result;
  }
  calls.clear();
  return first;
}

void dropGroupedCalls() { queue().clear(); }

}  // namespace flashccl
