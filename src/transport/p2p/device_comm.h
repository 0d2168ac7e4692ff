// The per-communicator state every kernel of ours receives by value (no extra indirection on the
// critical path). Host and device code both include this header.
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport/p2p/buffer_layout.h"

namespace flashccl {

// Values of DeviceErrorRecord::code (0 = fine).
enum DeviceError : int32_t {
  kDeviceErrorNone = 0,
  kDeviceErrorAborted = 1,       // a kernel returned early because the communicator was aborted
  kDeviceErrorCallMismatch = 2,  // a peer's call header differed from ours at the same launch
};

// What every rank must agree on for one call. Built by the runtime for each launch, announced by
// the kernel into every rank's buffer, compared by every peer before it touches our data.
struct CallHeader {
  uint32_t sequence;  // the call's number among all collective calls on the communicator
  uint32_t shape;     // packed kind, type, op class and algorithm (runtime/call_header.h)
  uint64_t count;
};

// What a kernel that stopped recorded for the host (pinned host memory, mapped). The first error
// wins; `code` is written last, so a host that sees it sees the rest.
struct DeviceErrorRecord {
  int32_t code;     // DeviceError
  int32_t peer;     // the rank whose header disagreed with ours (call mismatch), else -1
  uint64_t launch;  // our launch number when it happened
  CallHeader mine;
  CallHeader theirs;
};

// Words every kernel of a communicator shares on its device (local memory, never touched by
// peers). Kernels advance them, so a captured CUDA graph replays correctly any number of times.
struct LaunchState {
  uint64_t launches;      // launch number of the last kernel that completed
  uint64_t blocksDone;    // blocks of the running kernel that have finished
  uint64_t broken;        // non-zero once a call mismatch was seen: every later kernel stops
  uint64_t errorClaimed;  // the first kernel to report an error claims the record
};

// Thread blocks of one MSCCL executor launch, each with a dependency flag (DeviceComm).
constexpr int kMaxExecThreadBlocks = 128;

// Launches between sweeps that zero the LL and LL128 slots: LL flags are 32 bits, so a packet
// left in a slot could carry the flag of a launch 2^32 - 1 later. Sweeping every 2^30 launches
// keeps every packet a kernel can meet younger than that.
constexpr uint64_t kLLSweepInterval = 1ull << 30;

struct DeviceComm {
  int rank;
  int nranks;
  int smCount;                        // multiprocessors (minimum over ranks): caps packet grids
  int maxResidentBlocks;              // blocks of a chunked kernel that fit on the GPU at once
  size_t bufferBytes;                 // bytes of each rank's communication buffer
  char* buffers[kMaxPeerRanks];       // every rank's buffer, mapped here; [rank] is our own
  BufferLayout layout;                // where packets, flags and chunk slots sit in each buffer
  LaunchState* launchState;           // local
  uint64_t* chunkCounters;            // local, kChunkCounterCount: chunks sent/received per lane
  // kMaxExecThreadBlocks: the MSCCL executor's per-thread-block "step done" flags (local only).
  uint64_t* threadBlockFlags;
  DeviceErrorRecord* errorRecord;     // pinned host memory, mapped
  // Pinned host memory, mapped: [0] the last launch that started, [1] the last that completed.
  // The host reads them to tell a kernel that never finished from a rank that never came.
  volatile uint64_t* progress;
  const volatile int* abortFlag;      // pinned host memory, mapped: non-zero = stop waiting
  uint64_t sweepInterval;             // kLLSweepInterval (tests use a small power of two)
  CallHeader callHeader;              // the call being launched; set by the runtime per launch
};

}  // namespace flashccl
