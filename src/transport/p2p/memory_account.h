// How many bytes of peer buffers this process has allocated on each GPU: what
// FLASHCCL_MEMORY_LIMIT is compared with before a communicator's buffer grows (docs/design.md,
// "Memory grows with use"). Peers' buffers mapped here are their owners' memory and count there.
#pragma once

#include <cstddef>

namespace flashccl {

// Bytes allocated now on CUDA device `device` (0 for a device never used).
size_t peerBytesAllocated(int device);
// Whether `more` bytes on `device` keep the total within `limit`.
bool withinMemoryLimit(size_t allocated, size_t more, size_t limit);

// Counts `bytes` on `device` while it lives: PeerMemory holds one per buffer it allocated.
class PeerBytesHeld {
 public:
  PeerBytesHeld(int device, size_t bytes);
  ~PeerBytesHeld();
  PeerBytesHeld(const PeerBytesHeld&) = delete;
  PeerBytesHeld& operator=(const PeerBytesHeld&) = delete;

 private:
  int device_;
  size_t bytes_;
};

}  // namespace flashccl
