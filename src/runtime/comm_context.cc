#include "runtime/comm_context.h"

#include "base/check.h"
#include "base/log.h"
#include "base/real_nccl.h"
#include "base/result_string.h"
#include "base/thread_state.h"
#include "runtime/call_header.h"
#include "select/selector.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

CommContext::CommContext(ncclComm_t comm, int rank, int nranks, int cudaDev, bool blocking)
    : CommView(comm, rank, nranks, cudaDev), blocking(blocking) {}

CommContext::~CommContext() {
  // The watchdog first: it reads the recorder and the peers' progress words.
  if (trace) trace->unwatch();
  // Peer memory next: its kernels may still reference the selector's algorithms' state. Then
  // the rails, whose staging the same kernels and NCCL's may still use.
  peers_ = nullptr;
  ownedPeers_.reset();
  hierarchy_ = nullptr;
  rails_.reset();
  selector_.reset();
}

void CommContext::setIdentity(int newRank, int newNranks, int newCudaDev) {
  rank = newRank;
  nranks = newNranks;
  cudaDev = newCudaDev;
}

void CommContext::disable(const std::string& reason, bool expected) {
  if (state() == State::kDisabled) return;
  disabledReason_ = reason;
  if (state_.exchange(State::kDisabled, std::memory_order_acq_rel) == State::kDisabled) return;
  if (expected) {
    FCCL_INFO(kLogInit, "comm %p rank %d/%d: every call goes to NCCL: %s", static_cast<void*>(comm), rank, nranks,
              reason.c_str());
    return;
  }
  FCCL_WARN("comm %p rank %d/%d: flashccl disabled on this communicator, every call goes to NCCL: "
            "%s",
            static_cast<void*>(comm), rank, nranks, reason.c_str());
}

void CommContext::attachPeers(std::unique_ptr<PeerMemory> peers) {
  ownedPeers_ = std::move(peers);
  peers_ = ownedPeers_.get();
}

void CommContext::attachRails(std::unique_ptr<NodeRails> rails) {
  rails_ = std::move(rails);
  hierarchy_ = rails_ ? &rails_->view() : nullptr;
}

void CommContext::abortInFlightWork() {
  if (peers_ != nullptr) peers_->abort();
  if (rails_ != nullptr) rails_->abortRail();
}

void CommContext::releasePeerBuffers() {
  if (peers_ != nullptr && state() == State::kDisabled) peers_->releaseBuffers();
}

void CommContext::attachSelector(std::unique_ptr<Selector> selector) {
  selector_ = std::move(selector);
}

void CommContext::failFromWatchdog(ncclResult_t reason) {
  int expected = ncclSuccess;
  watchdogError_.compare_exchange_strong(expected, static_cast<int>(reason));
  if (peers_ != nullptr) peers_->abort();
  if (rails_ != nullptr) rails_->revokeRail();
}

void CommContext::revokeFromWatchdog(ncclResult_t reason) {
  failFromWatchdog(reason);
  const RealNccl* real = realNccl();
  if (real == nullptr || real->ncclCommRevoke == nullptr) {
    FCCL_WARN("comm %p rank %d: the real NCCL has no ncclCommRevoke: only flashccl's side is "
              "revoked (its calls fail with %s)", static_cast<void*>(comm), rank, resultString(reason));
    return;
  }
  ForwardScope scope;
  const ncclResult_t result = real->ncclCommRevoke(comm, NCCL_REVOKE_DEFAULT);
  if (result != ncclSuccess) {
    FCCL_WARN("comm %p rank %d: ncclCommRevoke failed: %s", static_cast<void*>(comm), rank, resultString(result));
  }
}

ncclResult_t CommContext::asyncError() {
  if (settled_.load(std::memory_order_relaxed)) return ncclSuccess;
  if (const int fromWatchdog = watchdogError_.load(std::memory_order_relaxed); fromWatchdog != ncclSuccess) {
    return static_cast<ncclResult_t>(fromWatchdog);
  }
  if (peers_ == nullptr) return ncclSuccess;
  const ncclResult_t error = peers_->asyncError();
  if (error != ncclSuccess && !errorReported_.exchange(true)) {
    const DeviceErrorRecord record = peers_->errorRecord();
    if (record.code == kDeviceErrorCallMismatch) {
      FCCL_WARN("%s", describeMismatch(comm, rank, record).c_str());
    } else {
      FCCL_WARN("comm %p rank %d: our kernel stopped at launch %llu with error %d; the communicator is unusable",
                static_cast<void*>(comm), rank, static_cast<unsigned long long>(record.launch), record.code);
    }
  }
  return error;
}

}  // namespace flashccl
