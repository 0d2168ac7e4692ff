// The per-communicator state every kernel of ours receives by value (no extra indirection on the
// critical path). Host and device code both include this header.
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport/p2p/buffer_layout.h"

namespace flashccl {

// Values of the error word (0 = fine).
enum DeviceError : int {
  kDeviceErrorNone = 0,
  kDeviceErrorAborted = 1,        // a kernel returned early because the communicator was aborted
  kDeviceErrorCallMismatch = 2,   // ranks ran different calls (count, type or op) at one point
};

// Thread blocks of one MSCCL executor launch, each with a dependency flag (DeviceComm).
constexpr int kMaxExecThreadBlocks = 128;

struct DeviceComm {
  int rank;
  int nranks;
  int smCount;                        // multiprocessors (minimum over ranks): caps packet grids
  int maxResidentBlocks;              // blocks of a chunked kernel that fit on the GPU at once
  size_t bufferBytes;                 // bytes of each rank's communication buffer
  char* buffers[kMaxPeerRanks];       // every rank's buffer, mapped here; [rank] is our own
  BufferLayout layout;                // where packets, flags and chunk slots sit in each buffer
  // Our device-side counters (local memory, never touched by peers). Kernels advance them, so a
  // captured CUDA graph replays correctly any number of times (DESIGN §2.6).
  uint64_t* llSequence;               // [0] launches of packet kernels so far, [1] blocks done
  uint64_t* chunkCounters;            // kChunkCounterCount: chunks sent/received per lane
  // kMaxExecThreadBlocks: the MSCCL executor's per-thread-block "step done" flags (local only).
  uint64_t* threadBlockFlags;
  int* errorWord;                     // pinned host memory, mapped: first error wins
  const volatile int* abortFlag;      // pinned host memory, mapped: non-zero = stop waiting
  // The call being launched: its index among this communicator's launches of ours (from 1) and a
  // signature of what every rank must agree on. Set by dispatch before each launch.
  uint64_t callIndex;
  uint64_t callSignature;
};

}  // namespace flashccl
