// Ranks that disagree on a call (one passes count 100, another 200; or another type or op) would
// leave our kernels waiting forever for data that never comes. Every kernel announces its call
// (index and signature, DeviceComm) into every rank's call headers when it starts; a thread that
// has been waiting a long time compares the headers of its recent calls with the peers' and, on a
// disagreement, records kDeviceErrorCallMismatch and stops waiting. The fast path pays one 16-byte
// store per rank per launch; the comparison runs only where the abort flag is checked.
//
// An entry is two 8-byte words, each {index low 32 bits, half of the signature}: 8-byte stores
// arrive whole, so an entry is judged only when both words carry the index looked for, and a
// half-written entry never reads as a disagreement.
#pragma once

#include <cstdint>

#include "transport/p2p/device_comm.h"

namespace flashccl {
namespace dev {

__device__ __forceinline__ uint64_t* callHeader(const DeviceComm& c, int owner, int rank, uint64_t index) {
  return reinterpret_cast<uint64_t*>(c.buffers[owner] + callHeaderOffset(c.layout, rank, index));
}

// Block 0's thread 0, at kernel start: our entry for this call, into every rank's buffer.
__device__ __forceinline__ void announceCall(const DeviceComm& c) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const uint64_t tag = c.callIndex << 32;
  const uint64_t lo = tag | (c.callSignature & 0xffffffffull);
  const uint64_t hi = tag | (c.callSignature >> 32);
  for (int r = 0; r < c.nranks; ++r) {
    asm volatile("st.volatile.global.v2.u64 [%0], {%1,%2};" ::"l"(callHeader(c, r, c.rank, c.callIndex)),
                 "l"(lo), "l"(hi)
                 : "memory");
  }
}

// The signature halves of `rank`'s entry for call `index` in our buffer; false when the entry is
// not (or not entirely) that call's.
__device__ __forceinline__ bool readCallEntry(const DeviceComm& c, int rank, uint64_t index, uint64_t* signature) {
  const volatile uint64_t* e = callHeader(c, c.rank, rank, index);
  const uint64_t lo = e[0], hi = e[1];
  const uint64_t tag = (index & 0xffffffffull) << 32;
  if ((lo & ~0xffffffffull) != tag || (hi & ~0xffffffffull) != tag) return false;
  *signature = (lo & 0xffffffffull) | (hi << 32);
  return true;
}

// True when some peer ran one of our last calls with another signature.
__device__ __forceinline__ bool peersDisagree(const DeviceComm& c) {
  for (uint64_t back = 0; back < kCallHeaderEntries && back < c.callIndex; ++back) {
    const uint64_t index = c.callIndex - back;
    uint64_t mine;
    if (!readCallEntry(c, c.rank, index, &mine)) continue;
    for (int r = 0; r < c.nranks; ++r) {
      uint64_t theirs;
      if (r != c.rank && readCallEntry(c, r, index, &theirs) && theirs != mine) return true;
    }
  }
  return false;
}

// Called by a spinning thread now and then: false when it must stop (aborted, or the ranks
// disagree on the call, which it records for the host).
__device__ __forceinline__ bool keepWaiting(const DeviceComm& c) {
  if (*c.abortFlag) return false;
  if (peersDisagree(c)) {
    *reinterpret_cast<volatile int*>(c.errorWord) = kDeviceErrorCallMismatch;
    return false;
  }
  return true;
}

// A kernel that stopped waiting says so, unless it stopped because of an error already recorded
// (keepWaiting's call mismatch): the first error wins.
__device__ __forceinline__ void reportAbort(const DeviceComm& c) {
  volatile int* word = reinterpret_cast<volatile int*>(c.errorWord);
  if (*word == kDeviceErrorNone) *word = kDeviceErrorAborted;
}

}  // namespace dev
}  // namespace flashccl
