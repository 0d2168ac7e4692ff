#include "transport/p2p/memory_account.h"

#include <atomic>

namespace flashccl {

namespace {
constexpr int kMaxDevices = 64;
std::atomic<size_t> allocatedBytes[kMaxDevices];

std::atomic<size_t>* counterOf(int device) {
  return device >= 0 && device < kMaxDevices ? &allocatedBytes[device] : nullptr;
}
}  // namespace

size_t peerBytesAllocated(int device) {
  const std::atomic<size_t>* counter = counterOf(device);
  return counter ? counter->load(std::memory_order_relaxed) : 0;
}

bool withinMemoryLimit(size_t allocated, size_t more, size_t limit) {
  return allocated <= limit && more <= limit - allocated;
}

PeerBytesHeld::PeerBytesHeld(int device, size_t bytes) : device_(device), bytes_(bytes) {
  if (std::atomic<size_t>* counter = counterOf(device_)) counter->fetch_add(bytes_, std::memory_order_relaxed);
}

PeerBytesHeld::~PeerBytesHeld() {
  if (std::atomic<size_t>* counter = counterOf(device_)) counter->fetch_sub(bytes_, std::memory_order_relaxed);
}

}  // namespace flashccl
