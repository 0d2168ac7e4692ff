// ncclGroupStart/End: per-thread depth, and set-up of the communicators created inside the group
// once the outermost ncclGroupEnd has let NCCL finish creating them.
#include "runtime/comm_lifecycle.h"
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
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclGroupEnd, ());
  return afterGroupEnd(result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclGroupEnd, ())

// Ends the group like ncclGroupEnd, estimating instead of launching.
FLASHCCL_EXPORT ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t* simInfo) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclGroupSimulateEnd, (simInfo));
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclGroupSimulateEnd, (simInfo));
  return afterGroupEnd(result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclGroupSimulateEnd, (ncclSimInfo_t * simInfo))
