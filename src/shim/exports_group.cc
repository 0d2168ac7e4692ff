// ncclGroupStart/End: per-thread depth; at the outermost end our grouped calls run (or, simulated,
// are dropped) and the communicators created inside the group are set up once NCCL has finished
// creating them.
#include "runtime/comm_lifecycle.h"
#include "runtime/grouped_calls.h"
#include "shim/forward.h"

namespace {

// The group's end (real or simulated) returned `result`.
ncclResult_t afterGroupEnd(ncclResult_t result) {
  flashccl::ThreadState& thread = flashccl::threadState();
  // NCCL leaves the group level even when the end fails; so do we.
  if (thread.groupDepth == 0) return result;
  if (--thread.groupDepth > 0) return result;
  ncclResult_t setUp = flashccl::onOutermostGroupEnd(result);
  return (result == ncclSuccess && setUp != ncclSuccess) ? setUp : result;
}

bool isOutermostEnd() { return flashccl::threadState().groupDepth == 1; }

}  // namespace

FLASHCCL_EXPORT ncclResult_t ncclGroupStart() {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclGroupStart, ());
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclGroupStart, ());
  if (result == ncclSuccess) ++flashccl::threadState().groupDepth;
  return result;
}
FLASHCCL_ALIAS(ncclResult_t, ncclGroupStart, ())

FLASHCCL_EXPORT ncclResult_t ncclGroupEnd() {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclGroupEnd, ());
  // Our calls of the group run first, then NCCL's, then ours across nodes (they call NCCL
  // themselves, so NCCL's group must have ended): the same order on every rank.
  const bool outermost = isOutermostEnd();
  const ncclResult_t launched = outermost ? flashccl::runGroupedCalls() : ncclSuccess;
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclGroupEnd, ());
  result = afterGroupEnd(result);
  const ncclResult_t acrossNodes = outermost ? flashccl::runGroupedCallsAcrossNodes() : ncclSuccess;
  if (result != ncclSuccess) return result;
  return launched != ncclSuccess ? launched : acrossNodes;
}
FLASHCCL_ALIAS(ncclResult_t, ncclGroupEnd, ())

// Ends the group like ncclGroupEnd, estimating instead of launching: none of our kernels run.
FLASHCCL_EXPORT ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t* simInfo) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclGroupSimulateEnd, (simInfo));
  if (isOutermostEnd()) flashccl::dropGroupedCalls();
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclGroupSimulateEnd, (simInfo));
  return afterGroupEnd(result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclGroupSimulateEnd, (ncclSimInfo_t * simInfo))
