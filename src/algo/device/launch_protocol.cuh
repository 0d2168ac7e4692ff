// What every kernel of ours does around its work, so that ranks never consume each other's data
// for different calls, graphs replay, and the host can tell where a kernel is:
//
//   const Launch launch = beginLaunch(comm);   // launch number; block 0 announces our call
//   ... push our own data to peers (LL kernels; never waits) ...
//   if (peersAgree(comm, launch)) { ... wait for and consume the peers' data ... }
//   endLaunch(comm, launch);                   // every block, every path
//
// The launch number counts every kernel of the communicator (device memory, advanced by the last
// block of each kernel), so it is the same on every rank for the same launch, and a replayed CUDA
// graph gets fresh numbers. The call header (sequence, kind, type, op, count, algorithm: built by
// the runtime) goes into every rank's buffer tagged with the launch number; a block compares
// every peer's header for this launch with its own before it touches a peer's data. On a
// difference it records both headers for the host, marks the communicator broken (every later
// kernel stops at the same check) and the kernel ends.
//
// On a communicator across nodes the peers here are one node's ranks, and the ranks of other
// nodes are reached through NCCL. Their call records arrive with the call's first inter-node
// exchange; the launch after it gets them (DeviceComm::railRecords) and compares them too. A rank
// whose rail peers called something else announces kShapeRailDisagreement instead of its header,
// so the peers on its node stop at their comparison as well.
#pragma once

#include <cstdint>

#include "algo/device/memory_ops.cuh"
#include "transport/p2p/device_comm.h"

namespace flashccl {
namespace dev {

struct Launch {
  uint64_t number;
  uint32_t flag;  // LL flag of this launch: never 0, so never matches a zeroed buffer
  int parity;     // which half of the LL slots this launch's packets use
};

__device__ __forceinline__ uint64_t* headerEntry(const DeviceComm& c, int owner, int rank, uint64_t launch) {
  return reinterpret_cast<uint64_t*>(c.buffers[owner] + callHeaderOffset(c.layout, rank, launch));
}

// Four words {launch tag << 32 | 32 payload bits}: each 8-byte store arrives whole, so a reader
// judges every word by its own tag and never mixes two launches' halves.
__device__ __forceinline__ void headerWords(const CallHeader& h, uint64_t launch, uint64_t* w) {
  const uint64_t tag = (launch & 0xffffffffull) << 32;
  w[0] = tag | h.sequence;
  w[1] = tag | h.shape;
  w[2] = tag | (h.count & 0xffffffffull);
  w[3] = tag | (h.count >> 32);
}

// The first rail record (launch_protocol.cuh, top) whose call differs from ours; null when they
// all agree or the launch carries none.
__device__ __forceinline__ const CallRecord* railDisagreement(const DeviceComm& c) {
  for (int i = 0; i < c.railRanks && c.railRecords != nullptr; ++i) {
    const CallHeader& h = c.railRecords[i].header;
    if (h.sequence != c.callHeader.sequence || h.shape != c.callHeader.shape || h.count != c.callHeader.count) {
      return &c.railRecords[i];
    }
  }
  return nullptr;
}

__device__ __forceinline__ Launch beginLaunch(const DeviceComm& c) {
  const uint64_t number = *reinterpret_cast<volatile const uint64_t*>(&c.launchState->launches) + 1;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    CallHeader announced = c.callHeader;
    if (railDisagreement(c) != nullptr) announced.shape = kShapeRailDisagreement;
    uint64_t w[4];
    headerWords(announced, number, w);
    for (int r = 0; r < c.nranks; ++r) {
      uint64_t* e = headerEntry(c, r, c.rank, number);
      asm volatile("st.volatile.global.v2.u64 [%0], {%1,%2};" ::"l"(e), "l"(w[0]), "l"(w[1]) : "memory");
      asm volatile("st.volatile.global.v2.u64 [%0], {%1,%2};" ::"l"(e + 2), "l"(w[2]), "l"(w[3]) : "memory");
    }
  }
  // The "started" stamp for the host (the flight recorder), by a thread that small messages leave
  // idle, so the read of the device word is off the critical path.
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == blockDim.x - 1 &&
      c.callSequence > c.launchState->startedSequence) {
    c.launchState->startedSequence = c.callSequence;
    c.progress[0] = c.callSequence;
  }
  return {number, static_cast<uint32_t>(number % 0xffffffffull) + 1u, static_cast<int>(number & 1)};
}

// Records an error for the host unless another kernel already did (first error wins).
__device__ __forceinline__ void recordError(const DeviceComm& c, int32_t code, int peer, uint64_t launch,
                                            const CallHeader& theirs) {
  if (atomicCAS(reinterpret_cast<unsigned long long*>(&c.launchState->errorClaimed), 0ull, 1ull) != 0ull) return;
  volatile DeviceErrorRecord* rec = c.errorRecord;
  rec->peer = peer;
  rec->launch = launch;
  rec->mine.sequence = c.callHeader.sequence;
  rec->mine.shape = c.callHeader.shape;
  rec->mine.count = c.callHeader.count;
  rec->theirs.sequence = theirs.sequence;
  rec->theirs.shape = theirs.shape;
  rec->theirs.count = theirs.count;
  __threadfence_system();
  rec->code = code;
}

// Thread 0's verdict, shared with the block.
__device__ __forceinline__ bool shareVerdict(bool ok) {
  __shared__ int sharedOk;
  if (threadIdx.x == 0) sharedOk = ok ? 1 : 0;
  __syncthreads();
  const bool result = sharedOk != 0;
  __syncthreads();  // nobody overwrites sharedOk before everyone has read it
  return result;
}

// Waits for `rank`'s header of this launch in our buffer; false when told to stop waiting.
__device__ __forceinline__ bool readPeerHeader(const DeviceComm& c, int rank, uint64_t launch, CallHeader* h) {
  const volatile uint64_t* e = headerEntry(c, c.rank, rank, launch);
  const uint64_t tag = launch & 0xffffffffull;
  uint32_t spins = 0;
  while (true) {
    const uint64_t w0 = e[0], w1 = e[1], w2 = e[2], w3 = e[3];
    if ((w0 >> 32) == tag && (w1 >> 32) == tag && (w2 >> 32) == tag && (w3 >> 32) == tag) {
      h->sequence = static_cast<uint32_t>(w0);
      h->shape = static_cast<uint32_t>(w1);
      h->count = (w2 & 0xffffffffull) | (w3 << 32);
      return true;
    }
    if (++spins == kAbortCheckInterval) {
      spins = 0;
      if (!keepWaiting(c)) return false;
    }
  }
}

// Block-wide: true when every peer announced the same call for this launch, every rail record
// the launch carries names it too, and the communicator is not broken. Called by every thread of
// the block before it consumes anything of a peer's.
__device__ __forceinline__ bool peersAgree(const DeviceComm& c, const Launch& launch) {
  bool ok = true;
  if (threadIdx.x == 0) {
    ok = *reinterpret_cast<volatile const uint64_t*>(&c.launchState->broken) == 0;
    if (ok) {
      if (const CallRecord* other = railDisagreement(c)) {
        *reinterpret_cast<volatile uint64_t*>(&c.launchState->broken) = 1;
        recordError(c, kDeviceErrorCallMismatch, other->worldRank, launch.number, other->header);
        ok = false;
      }
    }
    for (int r = 0; r < c.nranks && ok; ++r) {
      if (r == c.rank) continue;
      CallHeader theirs;
      if (!readPeerHeader(c, r, launch.number, &theirs)) {
        recordError(c, kDeviceErrorAborted, -1, launch.number, c.callHeader);
        ok = false;
      } else if (theirs.sequence != c.callHeader.sequence || theirs.shape != c.callHeader.shape ||
                 theirs.count != c.callHeader.count) {
        *reinterpret_cast<volatile uint64_t*>(&c.launchState->broken) = 1;
        recordError(c, kDeviceErrorCallMismatch, c.worldRanks[r], launch.number, theirs);
        ok = false;
      }
    }
  }
  return shareVerdict(ok);
}

// A wait on a peer that ended early (abort): tell the host, unless an error is already recorded.
__device__ __forceinline__ void reportAbort(const DeviceComm& c, const Launch& launch) {
  recordError(c, kDeviceErrorAborted, -1, launch.number, c.callHeader);
}

// Zeroes the LL and LL128 slots of one parity in our buffer (the whole block).
__device__ __forceinline__ void sweepPacketSlots(const DeviceComm& c, int parity) {
  for (int p = 0; p < c.nranks - 1; ++p) {
    char* ll = c.buffers[c.rank] + llSlotOffset(c.layout, p, parity);
    for (size_t off = threadIdx.x * 16ull; off < c.layout.llSlotBytes; off += blockDim.x * 16ull) {
      *reinterpret_cast<uint4*>(ll + off) = make_uint4(0, 0, 0, 0);
    }
    char* ll128 = c.buffers[c.rank] + ll128SlotOffset(c.layout, p, parity);
    for (size_t off = threadIdx.x * 16ull; off < c.layout.ll128SlotBytes; off += blockDim.x * 16ull) {
      *reinterpret_cast<uint4*>(ll128 + off) = make_uint4(0, 0, 0, 0);
    }
  }
}

// Every block, on every path: the last block to finish publishes the launch number (every block
// read the old one first) and, every sweepInterval launches, zeroes the packet slots this launch
// read. Nobody writes into them before our next-but-one launch, which cannot start before every
// peer has finished this one's successor.
__device__ __forceinline__ void endLaunch(const DeviceComm& c, const Launch& launch) {
  __shared__ int last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(reinterpret_cast<unsigned long long*>(&c.launchState->blocksDone), 1ull) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  if ((launch.number & (c.sweepInterval - 1)) < 2) {
    sweepPacketSlots(c, launch.parity);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    __threadfence();
    c.launchState->blocksDone = 0;
    c.launchState->launches = launch.number;
    // A call of several kernels (the algorithms across nodes) completes with its last one.
    if (!c.callContinues && c.callSequence > c.launchState->completedSequence) {
      c.launchState->completedSequence = c.callSequence;
      c.progress[1] = c.callSequence;
    }
  }
}

}  // namespace dev
}  // namespace flashccl
