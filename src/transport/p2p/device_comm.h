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

// What every rank of a call across nodes sends to its rail peers with the call's first inter-node
// exchange (through NCCL): its call header and its communicator rank. Ranks on different nodes
// never see each other's buffers, so this is how they compare calls (algo/rail_agreement.h).
struct CallRecord {
  CallHeader header;
  int32_t worldRank;
  int32_t reserved[3];  // 32 bytes: records stay 16-byte aligned in an array
};

// The `shape` a rank announces instead of its call's when a rank on another node called
// something else: no real call has it, so every peer on the node stops at the comparison too.
constexpr uint32_t kShapeRailDisagreement = 0xffffffffu;

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
  // The highest call sequence numbers a kernel started / completed, as stamped into `progress`:
  // a replay of an older captured call never lowers them.
  uint64_t startedSequence;
  uint64_t completedSequence;
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
  // Pinned host memory, mapped: [0] the highest call sequence number whose kernel started, [1]
  // whose kernel completed. The flight recorder reads them to tell a kernel that never finished
  // from a rank that never came (src/trace).
  volatile uint64_t* progress;
  const volatile int* abortFlag;      // pinned host memory, mapped: non-zero = stop waiting
  uint64_t sweepInterval;             // kLLSweepInterval (tests use a small power of two)
  CallHeader callHeader;              // the call being launched; set by the runtime per launch
  uint64_t callSequence;              // its full sequence number (the header carries 32 bits)
  // Set for every kernel of a call but its last (the algorithms across nodes run several, with
  // NCCL's steps between them): only the last stamps the call completed in `progress`.
  bool callContinues;
  // The communicator rank of each rank here: on a communicator across nodes these ranks are one
  // node's, and errors must name the ranks the application knows.
  int worldRanks[kMaxPeerRanks];
  // Set only for the launch that follows a call's first inter-node exchange: the call records of
  // every rank of this rank's rail (device memory, `railRanks` of them). Compared with our own
  // header before anything is consumed (launch_protocol.cuh).
  const CallRecord* railRecords;
  int railRanks;
};

}  // namespace flashccl
