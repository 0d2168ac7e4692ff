#include "runtime/comm_context.h"

#include "base/check.h"
#include "base/log.h"
#include "select/selector.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

CommContext::CommContext(ncclComm_t comm, int rank, int nranks, int cudaDev, bool blocking)
    : CommView(comm, rank, nranks, cudaDev), blocking(blocking) {}

CommContext::~CommContext() {
  // Peer memory first: its kernels may still reference the selector's algorithms' state.
  peers_ = nullptr;
  ownedPeers_.reset();
  selector_.reset();
  if (orderEvent_ != nullptr) cudaEventDestroy(orderEvent_);
}

void CommContext::setIdentity(int newRank, int newNranks, int newCudaDev) {
  rank = newRank;
  nranks = newNranks;
  cudaDev = newCudaDev;
}

void CommContext::disable(const std::string& reason) {
  if (state() == State::kDisabled) return;
  disabledReason_ = reason;
  if (state_.exchange(State::kDisabled, std::memory_order_acq_rel) == State::kDisabled) return;
  FCCL_WARN("comm %p rank %d/%d: flashccl disabled on this communicator, every call goes to NCCL: "
            "%s",
            static_cast<void*>(comm), rank, nranks, reason.c_str());
}

void CommContext::attachPeers(std::unique_ptr<PeerMemory> peers) {
  ownedPeers_ = std::move(peers);
  peers_ = ownedPeers_.get();
}

void CommContext::attachSelector(std::unique_ptr<Selector> selector) {
  selector_ = std::move(selector);
}

ncclResult_t CommContext::orderAfterPreviousLaunch(cudaStream_t stream) {
  if (haveLastStream_ && stream == lastStream_) return ncclSuccess;
  if (!haveLastStream_) {
    lastStream_ = stream;
    haveLastStream_ = true;
    return ncclSuccess;
  }
  // Inside a capture the graph's own dependencies order the work, and an event recorded outside
  // it cannot be waited on inside it (nor the other way round): remember the stream and go.
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaStreamCaptureStatus previousStatus = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess ||
      cudaStreamIsCapturing(lastStream_, &previousStatus) != cudaSuccess ||
      status != cudaStreamCaptureStatusNone || previousStatus != cudaStreamCaptureStatusNone) {
    cudaGetLastError();  // a failed query must not surface later as someone else's error
    lastStream_ = stream;
    return ncclSuccess;
  }
  if (orderEvent_ == nullptr) {
    FCCL_CUDA_CHECK(cudaEventCreateWithFlags(&orderEvent_, cudaEventDisableTiming));
  }
  // The previous stream must still exist. If the app has destroyed it, recording fails and we
  // skip the ordering instead of failing this call.
  if (cudaEventRecord(orderEvent_, lastStream_) == cudaSuccess) {
    FCCL_CUDA_CHECK(cudaStreamWaitEvent(stream, orderEvent_, 0));
  } else {
    cudaGetLastError();
  }
  lastStream_ = stream;
  return ncclSuccess;
}

ncclResult_t CommContext::asyncError() { return peers_ ? peers_->asyncError() : ncclSuccess; }

}  // namespace flashccl
