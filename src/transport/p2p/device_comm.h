// The per-communicator state every kernel of ours receives by value (no extra indirection on the
// critical path). Host and device code both include this header.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flashccl {

// The fast path serves up to this many ranks per communicator (one NVLink domain). Larger
// communicators go to NCCL.
constexpr int kMaxPeerRanks = 8;

// Values of the error word (0 = fine).
enum DeviceError : int {
  kDeviceErrorNone = 0,
  kDeviceErrorCountMismatch = 1,  // ranks called the same collective with different counts
  kDeviceErrorAborted = 2,        // a kernel returned because the communicator was aborted
};

struct DeviceComm {
  int rank;
  int nranks;
  size_t bufferBytes;                 // bytes of each rank's communication buffer
  char* buffers[kMaxPeerRanks];       // every rank's buffer, mapped here; [rank] is our own
  uint64_t* sequence;                 // our device-side launch counter (graph-replay safe)
  int* errorWord;                     // pinned host memory, mapped: first error wins
  const volatile int* abortFlag;      // pinned host memory, mapped: non-zero = stop waiting
};

}  // namespace flashccl
