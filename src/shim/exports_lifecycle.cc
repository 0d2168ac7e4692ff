// Communicator creation and teardown: the real call first, then the side table follows
// (runtime/comm_lifecycle.h). Calls NCCL makes into its own exports are forwarded untouched.
#include <memory>
#include <vector>

#include "runtime/comm_context.h"
#include "runtime/comm_lifecycle.h"
#include "runtime/comm_table.h"
#include "base/log.h"
#include "shim/forward.h"
#include "trace/watchdog.h"

namespace {

using flashccl::CommContext;
using flashccl::CommTable;

// The init call's result, unless our set-up after a successful init failed inside the real NCCL.
ncclResult_t afterCreate(const std::vector<ncclComm_t>& comms, bool blocking,
                         ncclResult_t result) {
  ncclResult_t setUp = flashccl::onCommunicatorsCreated(comms, blocking, result);
  return (result == ncclSuccess && setUp != ncclSuccess) ? setUp : result;
}

std::vector<ncclComm_t> created(ncclComm_t* comm, ncclResult_t result) {
  if (comm == nullptr || (result != ncclSuccess && result != ncclInProgress)) return {};
  return {*comm};
}

// After ncclCommDestroy/Abort: the context goes, with its counters printed. Its peer memory is
// freed on the communicator's device, whichever device the caller has current (one thread often
// destroys the comms of several GPUs in a row).
void retire(std::unique_ptr<CommContext> ctx, const char* how) {
  if (!ctx) return;
  FCCL_INFO(flashccl::kLogInit | flashccl::kLogColl, "comm %p rank %d/%d %s: %s",
            static_cast<void*>(ctx->comm), ctx->rank, ctx->nranks, how,
            ctx->stats.summary().c_str());
  int previous = -1;
  const bool switchDevice = ctx->peers() != nullptr && ctx->cudaDev >= 0 &&
                            cudaGetDevice(&previous) == cudaSuccess && previous != ctx->cudaDev &&
                            cudaSetDevice(ctx->cudaDev) == cudaSuccess;
  ctx.reset();
  if (switchDevice) cudaSetDevice(previous);
}

// Before the real destroy or abort: the watchdog's thread may revoke the real communicator
// (FLASHCCL_HANG_ACTION=revoke), which must not meet it freed.
void unwatch(CommContext* ctx) {
  if (ctx != nullptr && ctx->trace) ctx->trace->unwatch();
}

// Makes our kernels on `comm` stop waiting for peers, and forwards every later call.
void stopOurKernels(ncclComm_t comm, const char* why) {
  CommContext* ctx = CommTable::instance().find(comm);
  if (ctx == nullptr) return;
  ctx->abortInFlightWork();
  ctx->disable(why);
}

// After the real NCCL stopped its own work too: a stopped communicator's peer buffers go now, not
// at its destroy (which a job that gave up may never reach).
void releaseStoppedBuffers(ncclComm_t comm) {
  if (CommContext* ctx = CommTable::instance().find(comm)) ctx->releasePeerBuffers();
}

// The parent once the survivors have their child: no longer watched (its dead rank would be
// named again and again) and, like NCCL's parent, without an error of ours.
void settleShrunkParent(ncclComm_t comm) {
  CommContext* ctx = CommTable::instance().find(comm);
  if (ctx == nullptr) return;
  unwatch(ctx);
  ctx->settleAfterShrink();
}

}  // namespace

FLASHCCL_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId,
                                              int rank) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclCommInitRank, (comm, nranks, commId, rank));
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclCommInitRank, (comm, nranks, commId, rank));
  return afterCreate(created(comm, result), flashccl::isBlockingConfig(nullptr, nullptr), result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommInitRank,
               (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank))

FLASHCCL_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks,
                                                    ncclUniqueId commId, int rank,
                                                    ncclConfig_t* config) {
  if (flashccl::isNestedCall()) {
    FLASHCCL_FORWARD(ncclCommInitRankConfig, (comm, nranks, commId, rank, config));
  }
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclCommInitRankConfig, (comm, nranks, commId, rank, config));
  return afterCreate(created(comm, result), flashccl::isBlockingConfig(config, nullptr), result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommInitRankConfig,
               (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank,
                ncclConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t* newcomm, int nranks, int myrank,
                                                      int nId, ncclUniqueId* commIds,
                                                      ncclConfig_t* config) {
  if (flashccl::isNestedCall()) {
    FLASHCCL_FORWARD(ncclCommInitRankScalable, (newcomm, nranks, myrank, nId, commIds, config));
  }
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclCommInitRankScalable,
                     (newcomm, nranks, myrank, nId, commIds, config));
  return afterCreate(created(newcomm, result), flashccl::isBlockingConfig(config, nullptr),
                     result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommInitRankScalable,
               (ncclComm_t * newcomm, int nranks, int myrank, int nId, ncclUniqueId* commIds,
                ncclConfig_t* config))

// One thread, several GPUs: the comms are set up together, in one call, because their handle
// exchange has to be one NCCL group.
FLASHCCL_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclCommInitAll, (comms, ndev, devlist));
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclCommInitAll, (comms, ndev, devlist));
  std::vector<ncclComm_t> all;
  if ((result == ncclSuccess || result == ncclInProgress) && comms != nullptr && ndev > 0) {
    all.assign(comms, comms + ndev);
  }
  return afterCreate(all, /*blocking=*/true, result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommInitAll, (ncclComm_t * comms, int ndev, const int* devlist))

FLASHCCL_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                           ncclComm_t* newcomm, ncclConfig_t* config) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclCommSplit, (comm, color, key, newcomm, config));
  const bool blocking = flashccl::isBlockingConfig(config, CommTable::instance().find(comm));
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclCommSplit, (comm, color, key, newcomm, config));
  return afterCreate(created(newcomm, result), blocking, result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommSplit,
               (ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclCommShrink(ncclComm_t comm, int* excludeRanksList,
                                            int excludeRanksCount, ncclComm_t* newcomm,
                                            ncclConfig_t* config, int shrinkFlags) {
  if (flashccl::isNestedCall()) {
    FLASHCCL_FORWARD(ncclCommShrink,
                     (comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags));
  }
  ncclResult_t error = ncclSuccess;
  auto fn = flashccl::realFunction(&flashccl::RealNccl::ncclCommShrink, "ncclCommShrink", &error);
  if (fn == nullptr) return error;
  const bool blocking = flashccl::isBlockingConfig(config, CommTable::instance().find(comm));
  // NCCL_SHRINK_ABORT ends the parent's outstanding work, which must include ours: our kernels
  // may be waiting for the very ranks being excluded.
  if (shrinkFlags & NCCL_SHRINK_ABORT) stopOurKernels(comm, "parent of ncclCommShrink(ABORT)");
  ncclResult_t result;
  {
    flashccl::ForwardScope scope;
    result = fn(comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags);
  }
  if (shrinkFlags & NCCL_SHRINK_ABORT) {
    releaseStoppedBuffers(comm);
    if (result == ncclSuccess || result == ncclInProgress) settleShrunkParent(comm);
  }
  return afterCreate(created(newcomm, result), blocking, result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommShrink,
               (ncclComm_t comm, int* excludeRanksList, int excludeRanksCount,
                ncclComm_t* newcomm, ncclConfig_t* config, int shrinkFlags))

// NCCL 2.32: ranks join an existing communicator. Existing ranks pass it (comm), joining ranks
// pass NULL; either way the new communicator is set up like a split's child.
FLASHCCL_EXPORT ncclResult_t ncclCommGrow(ncclComm_t comm, int nRanks, const ncclUniqueId* uniqueId,
                                          int rank, ncclComm_t* newcomm, ncclConfig_t* config) {
  if (flashccl::isNestedCall()) {
    FLASHCCL_FORWARD(ncclCommGrow, (comm, nRanks, uniqueId, rank, newcomm, config));
  }
  const bool blocking = flashccl::isBlockingConfig(
      config, comm ? CommTable::instance().find(comm) : nullptr);
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclCommGrow, (comm, nRanks, uniqueId, rank, newcomm, config));
  return afterCreate(created(newcomm, result), blocking, result);
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommGrow,
               (ncclComm_t comm, int nRanks, const ncclUniqueId* uniqueId, int rank,
                ncclComm_t* newcomm, ncclConfig_t* config))

FLASHCCL_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclCommDestroy, (comm));
  ncclResult_t error = ncclSuccess;
  auto fn = flashccl::realFunction(&flashccl::RealNccl::ncclCommDestroy, "ncclCommDestroy", &error);
  if (fn == nullptr) return error;
  std::unique_ptr<CommContext> ctx = CommTable::instance().remove(comm);
  unwatch(ctx.get());
  ncclResult_t result;
  {
    flashccl::ForwardScope scope;
    result = fn(comm);
  }
  retire(std::move(ctx), "destroyed");
  return result;
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommDestroy, (ncclComm_t comm))

// May arrive from another thread while the comm's own thread is blocked in it: our kernels are
// told to stop first, so neither NCCL's nor ours keep waiting for a peer that is gone.
FLASHCCL_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclCommAbort, (comm));
  ncclResult_t error = ncclSuccess;
  auto fn = flashccl::realFunction(&flashccl::RealNccl::ncclCommAbort, "ncclCommAbort", &error);
  if (fn == nullptr) return error;
  if (CommContext* live = CommTable::instance().find(comm)) {
    // The flight recorder as it was when the job gave up (only if some call never completed).
    if (live->trace) flashccl::dumpTracedCommAtAbort(live->trace.get());
    live->abortInFlightWork();
  }
  std::unique_ptr<CommContext> ctx = CommTable::instance().remove(comm);
  unwatch(ctx.get());
  ncclResult_t result;
  {
    flashccl::ForwardScope scope;
    result = fn(comm);
  }
  retire(std::move(ctx), "aborted");
  return result;
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommAbort, (ncclComm_t comm))

FLASHCCL_EXPORT ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclCommRevoke, (comm, revokeFlags));
  ncclResult_t error = ncclSuccess;
  auto fn = flashccl::realFunction(&flashccl::RealNccl::ncclCommRevoke, "ncclCommRevoke", &error);
  if (fn == nullptr) return error;  // e.g. NCCL 2.28.3: nothing revoked, ours included
  stopOurKernels(comm, "revoked by ncclCommRevoke");
  ncclResult_t result;
  {
    flashccl::ForwardScope scope;
    result = fn(comm, revokeFlags);
  }
  releaseStoppedBuffers(comm);
  return result;
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommRevoke, (ncclComm_t comm, int revokeFlags))

// NCCL's own error first; when it has none, ours (e.g. ranks disagreed on a count in our kernel).
// Ours also over NCCL's ncclInProgress: a communicator the watchdog revoked (FLASHCCL_HANG_ACTION
// =revoke) is in progress for NCCL until it is quiescent, but its call has failed.
FLASHCCL_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* asyncError) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclCommGetAsyncError, (comm, asyncError));
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclCommGetAsyncError, (comm, asyncError));
  if (result == ncclSuccess && asyncError != nullptr &&
      (*asyncError == ncclSuccess || *asyncError == ncclInProgress)) {
    if (CommContext* ctx = CommTable::instance().find(comm)) {
      if (const ncclResult_t ours = ctx->asyncError(); ours != ncclSuccess) *asyncError = ours;
    }
  }
  return result;
}
FLASHCCL_ALIAS(ncclResult_t, ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t * asyncError))
