#include "runtime/node_rails.h"

#include <cuda_runtime_api.h>

#include "base/log.h"
#include "base/real_nccl.h"
#include "base/thread_state.h"

namespace flashccl {

std::unique_ptr<NodeRails> NodeRails::allocate(const NodeLayout& layout, int cudaDev, size_t stagingBytes,
                                               std::string* why) {
  std::unique_ptr<NodeRails> rails(new NodeRails());
  static_cast<NodeLayout&>(rails->view_) = layout;
  rails->device_ = cudaDev;
  Hierarchy& h = rails->view_;
  const size_t recordBytes = sizeof(CallRecord) * (static_cast<size_t>(h.nnodes) + 1);
  int saved = 0;
  cudaGetDevice(&saved);
  cudaError_t err = cudaSetDevice(cudaDev);
  if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&h.railStream, cudaStreamNonBlocking);
  if (err == cudaSuccess) err = cudaEventCreateWithFlags(&h.forked, cudaEventDisableTiming);
  for (cudaEvent_t& done : h.railDone) {
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  }
  if (err == cudaSuccess) err = cudaMalloc(&h.staging, stagingBytes);
  if (err == cudaSuccess) err = cudaMalloc(&h.records, recordBytes);
  if (err == cudaSuccess) err = cudaMemset(h.records, 0, recordBytes);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  cudaSetDevice(saved);
  if (err != cudaSuccess) {
    cudaGetLastError();
    *why = std::string("allocating the rail stream and staging: ") + cudaGetErrorString(err);
    return nullptr;  // the destructor frees what was made
  }
  h.stagingBytes = stagingBytes;
  return rails;
}

std::unique_ptr<NodeRails> NodeRails::describeOnly(const NodeLayout& layout, size_t stagingBytes) {
  std::unique_ptr<NodeRails> rails(new NodeRails());
  static_cast<NodeLayout&>(rails->view_) = layout;
  rails->view_.stagingBytes = stagingBytes;
  return rails;
}

void NodeRails::abortRail() {
  std::lock_guard<std::mutex> lock(railMutex_);
  if (view_.rail == nullptr) return;
  const RealNccl* real = realNccl();
  if (real != nullptr && real->ncclCommAbort != nullptr) {
    ForwardScope scope;
    real->ncclCommAbort(view_.rail);
  }
  view_.rail = nullptr;
}

void NodeRails::revokeRail() {
  std::lock_guard<std::mutex> lock(railMutex_);
  const RealNccl* real = realNccl();
  if (view_.rail == nullptr || real == nullptr || real->ncclCommRevoke == nullptr) return;
  ForwardScope scope;
  const ncclResult_t result = real->ncclCommRevoke(view_.rail, NCCL_REVOKE_DEFAULT);
  if (result != ncclSuccess) FCCL_INFO(kLogInit, "revoking a rail communicator: NCCL error %d", (int)result);
}

NodeRails::~NodeRails() {
  std::lock_guard<std::mutex> lock(railMutex_);
  if (view_.rail != nullptr) {
    const RealNccl* real = realNccl();
    if (real != nullptr && real->ncclCommDestroy != nullptr) {
      ForwardScope scope;
      const ncclResult_t result = real->ncclCommDestroy(view_.rail);
      if (result != ncclSuccess) FCCL_INFO(kLogInit, "destroying a rail communicator: NCCL error %d", (int)result);
    }
  }
  if (device_ < 0) return;
  int saved = 0;
  cudaGetDevice(&saved);
  cudaSetDevice(device_);
  // cudaFree and cudaStreamDestroy wait for the work still using them.
  if (view_.records) cudaFree(view_.records);
  if (view_.staging) cudaFree(view_.staging);
  for (cudaEvent_t done : view_.railDone) {
    if (done) cudaEventDestroy(done);
  }
  if (view_.forked) cudaEventDestroy(view_.forked);
  if (view_.railStream) cudaStreamDestroy(view_.railStream);
  cudaGetLastError();  // teardown errors must not surface in the application's next CUDA call
  cudaSetDevice(saved);
}

}  // namespace flashccl
