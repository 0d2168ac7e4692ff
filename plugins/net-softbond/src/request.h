// The requests NCCL polls with test(). A connection owns a fixed pool (NCCL keeps at most
// NCCL_NET_MAX_REQUESTS outstanding per comm); isend/irecv hand back NULL when it is full, which
// NCCL treats as "try again".
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "nccl_net_abi.h"

namespace flashccl::softbond {

class Connection;
struct MemoryRegistration;

enum class RequestState : int { kFree = 0, kSubmitted, kDone, kFailed };

struct Request {
  std::atomic<int> state{static_cast<int>(RequestState::kFree)};
  Connection* owner = nullptr;
  // Set by the NCCL thread before submission.
  char* data = nullptr;
  size_t size = 0;  // send: bytes to send; receive: capacity
  MemoryRegistration* registration = nullptr;
  // Set by the progress thread before it publishes kDone / kFailed.
  size_t completedBytes = 0;
  ncclResult_t error = ncclSuccess;
};

class RequestPool {
 public:
  static constexpr int kSize = NCCL_NET_MAX_REQUESTS;
  explicit RequestPool(Connection* owner) {
    for (Request& request : requests_) request.owner = owner;
  }
  // NULL when every request is in use.
  Request* acquire() {
    for (Request& request : requests_) {
      int expected = static_cast<int>(RequestState::kFree);
      if (request.state.compare_exchange_strong(expected, static_cast<int>(RequestState::kSubmitted),
                                                std::memory_order_acquire))
        return &request;
    }
    return nullptr;
  }

 private:
  Request requests_[kSize];
};

}  // namespace flashccl::softbond
