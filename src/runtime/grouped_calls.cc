#include "runtime/grouped_calls.h"

#include <vector>

#include "algo/algorithm.h"
#include "runtime/comm_context.h"
#include "runtime/comm_launch.h"

namespace flashccl {

namespace {

struct GroupedCall {
  CommContext* ctx;
  CollCall call;
  Algorithm* algorithm;  // nullptr: a call forwarded into NCCL's group (counted and recorded)
  int algorithmId;
  TraceCall forwarded;   // what the flight recorder keeps of a forwarded one
};

// Per thread, as NCCL's groups are. Kept between groups so the hot path reuses its memory.
std::vector<GroupedCall>& queue() {
  static thread_local std::vector<GroupedCall> calls;
  return calls;
}

// Calls of algorithms across nodes, with their sequence numbers: they call NCCL themselves, so
// they run after NCCL's group has ended (Algorithm::spansNodes).
struct NumberedCall {
  GroupedCall grouped;
  uint64_t sequence;
  RecordTicket recorded;  // valid when the communicator has a flight recorder
};
std::vector<NumberedCall>& acrossNodes() {
  static thread_local std::vector<NumberedCall> calls;
  return calls;
}

}  // namespace

void queueGroupedLaunch(CommContext* ctx, const CollCall& call, Algorithm* algorithm, int algorithmId) {
  queue().push_back({ctx, call, algorithm, algorithmId, TraceCall{}});
}

void queueGroupedForward(CommContext* ctx, const TraceCall& call) {
  queue().push_back({ctx, CollCall{}, nullptr, 0, call});
}

ncclResult_t runGroupedCalls() {
  std::vector<GroupedCall>& calls = queue();
  ncclResult_t first = ncclSuccess;
  for (const GroupedCall& grouped : calls) {
    const uint64_t sequence = ++grouped.ctx->callSequence;
    if (grouped.algorithm == nullptr) {
      if (grouped.ctx->trace) grouped.ctx->trace->recorder().record(grouped.forwarded);
      continue;
    }
    if (grouped.algorithm->spansNodes()) {
      // Recorded now, in call order beside the group's other calls, though it launches after
      // NCCL's group has ended (runGroupedCallsAcrossNodes).
      RecordTicket recorded{0, 0};
      if (grouped.ctx->trace) {
        recorded = grouped.ctx->trace->recorder().record(
            tracedLaunch(grouped.call, *grouped.algorithm, sequence, /*grouped=*/true,
                         LaunchOrder::streamCapturing(grouped.call.stream)));
      }
      acrossNodes().push_back({grouped, sequence, recorded});
      continue;
    }
    const ncclResult_t result =
        launchOnCommunicator(grouped.ctx, grouped.call, grouped.algorithm, grouped.algorithmId, sequence);
    if (first == ncclSuccess) first = result;
  }
  calls.clear();
  return first;
}

ncclResult_t runGroupedCallsAcrossNodes() {
  std::vector<NumberedCall>& calls = acrossNodes();
  ncclResult_t first = ncclSuccess;
  for (const NumberedCall& numbered : calls) {
    const GroupedCall& grouped = numbered.grouped;
    const ncclResult_t result = launchOnCommunicator(grouped.ctx, grouped.call, grouped.algorithm, grouped.algorithmId,
                                                     numbered.sequence, &numbered.recorded);
    if (first == ncclSuccess) first = result;
  }
  calls.clear();
  return first;
}

void dropGroupedCalls() {
  queue().clear();
  acrossNodes().clear();
}

}  // namespace flashccl
