// Memory primitives of our kernels: cross-GPU flags with explicit release/acquire at system
// scope (DESIGN §2.7), LL packets (8 data bytes + two 4-byte flags written by one 16-byte store,
// so data and flag arrive together and no fence is needed), and loads/stores that tolerate any
// alignment of the user's buffers.
#pragma once

#include <cstdint>

#include "transport/p2p/device_comm.h"

namespace flashccl {
namespace dev {

// How many spins between looks at the host-mapped abort flag (keepWaiting). A look costs a PCIe
// round trip, so it is rare; an aborted communicator still gets every kernel out within
// milliseconds.
constexpr uint32_t kAbortCheckInterval = 1u << 15;

// Called by a spinning thread now and then: false when it must stop (the communicator was
// aborted). Peers that disagree on a call never get this far: kernels compare call headers
// before they wait on a peer's data (launch_protocol.cuh).
__device__ __forceinline__ bool keepWaiting(const DeviceComm& c) { return *c.abortFlag == 0; }

__device__ __forceinline__ uint64_t loadAcquireSys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void storeReleaseSys(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Spins until *flag >= target (flags only grow). False when it must stop (keepWaiting).
__device__ __forceinline__ bool waitFlagAtLeast(const uint64_t* flag, uint64_t target, const DeviceComm& comm) {
  uint32_t spins = 0;
  while (loadAcquireSys(flag) < target) {
    if (++spins == kAbortCheckInterval) {
      spins = 0;
      if (!keepWaiting(comm)) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// LL packets: {data lo, flag, data hi, flag}. Each 8-byte half {data, flag} is written atomically
// by the 16-byte store, so a reader that sees both flags equal to the expected value also sees
// both data words of this launch.

__device__ __forceinline__ void llStore(void* dst, uint64_t data, uint32_t flag) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(dst),
               "r"(static_cast<uint32_t>(data)), "r"(flag), "r"(static_cast<uint32_t>(data >> 32)),
               "r"(flag)
               : "memory");
}

// Waits for the packet at `src` to carry `flag`; false when it must stop (keepWaiting).
__device__ __forceinline__ bool llLoad(const void* src, uint32_t flag, const DeviceComm& comm, uint64_t* data) {
  uint32_t d0, f0, d1, f1;
  uint32_t spins = 0;
  while (true) {
    asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1)
                 : "l"(src)
                 : "memory");
    if (f0 == flag && f1 == flag) break;
    if (++spins == kAbortCheckInterval) {
      spins = 0;
      if (!keepWaiting(comm)) return false;
    }
  }
  *data = static_cast<uint64_t>(d0) | (static_cast<uint64_t>(d1) << 32);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Loads and stores of up to 8 or 16 bytes at any alignment. `aligned` is decided once per kernel
// from the base pointers; the byte loops only run for misaligned buffers or the last partial
// pack of a message.

__device__ __forceinline__ uint64_t load8(const char* p, int nbytes, bool aligned) {
  if (aligned && nbytes == 8) return *reinterpret_cast<const uint64_t*>(p);
  uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

__device__ __forceinline__ void store8(char* p, uint64_t v, int nbytes, bool aligned) {
  if (aligned && nbytes == 8) {
    *reinterpret_cast<uint64_t*>(p) = v;
    return;
  }
  for (int i = 0; i < nbytes; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

__device__ __forceinline__ uint4 load16(const char* p, int nbytes, bool aligned) {
  if (aligned && nbytes == 16) return *reinterpret_cast<const uint4*>(p);
  uint32_t w[4] = {0, 0, 0, 0};
  for (int i = 0; i < nbytes; ++i) w[i / 4] |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * (i % 4));
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// Loads data a peer wrote into our buffer: .cg skips L1, which is not coherent with NVLink
// writes and may still hold the slot's previous contents.
__device__ __forceinline__ uint4 load16Peer(const char* p) {
  return __ldcg(reinterpret_cast<const uint4*>(p));
}

__device__ __forceinline__ void store16(char* p, uint4 v, int nbytes, bool aligned) {
  if (aligned && nbytes == 16) {
    *reinterpret_cast<uint4*>(p) = v;
    return;
  }
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  for (int i = 0; i < nbytes; ++i) p[i] = static_cast<char>(w[i / 4] >> (8 * (i % 4)));
}

__device__ __forceinline__ bool isAligned(const void* p, int bytes) {
  return (reinterpret_cast<uintptr_t>(p) & (bytes - 1)) == 0;
}

}  // namespace dev
}  // namespace flashccl
