// Block-level steps of the chunked (bulk) kernels: a lane of one thread block streams chunks to a
// peer through the peer's chunk slots. The sender waits until the slot it wants is free (the
// receiver's ack counter), fills it with 16-byte stores over NVLink, and raises the slot's ready
// flag with a release store; the receiver waits for the flag with acquire loads, consumes the
// chunk, and raises its ack counter in the sender's buffer. Counters only grow and persist on the
// device across launches, so CUDA-graph replays stay in step.
//
// Every function here is called by all threads of the block; thread 0 does the flag work and a
// __syncthreads() shares the outcome. On abort they return false and the kernel winds down.
#pragma once

#include <cstdint>

#include "algo/device/launch_protocol.cuh"
#include "algo/device/memory_ops.cuh"
#include "algo/device/reduce_ops.cuh"
#include "transport/p2p/device_comm.h"

namespace flashccl {
namespace dev {

struct LaneRef {
  const DeviceComm* comm;
  int channel;
  int lane;
};

// --- addresses ------------------------------------------------------------------------------

__device__ __forceinline__ char* peerSlot(const LaneRef& l, int peer, uint64_t chunk) {
  const DeviceComm& c = *l.comm;
  return c.buffers[peer] + chunkSlotOffset(c.layout, c.nranks, l.channel,
                                           peerIndex(peer, c.rank, c.nranks), l.lane,
                                           static_cast<int>(chunk % c.layout.slots));
}

__device__ __forceinline__ const char* localSlot(const LaneRef& l, int source, uint64_t chunk) {
  const DeviceComm& c = *l.comm;
  return c.buffers[c.rank] + chunkSlotOffset(c.layout, c.nranks, l.channel,
                                             peerIndex(c.rank, source, c.nranks), l.lane,
                                             static_cast<int>(chunk % c.layout.slots));
}

__device__ __forceinline__ uint64_t* peerReadyFlag(const LaneRef& l, int peer, uint64_t chunk) {
  const DeviceComm& c = *l.comm;
  return reinterpret_cast<uint64_t*>(
             c.buffers[peer] + readyLineOffset(c.layout, l.channel, peerIndex(peer, c.rank, c.nranks), l.lane)) +
         chunk % c.layout.slots;
}

__device__ __forceinline__ const uint64_t* localReadyFlag(const LaneRef& l, int source, uint64_t chunk) {
  const DeviceComm& c = *l.comm;
  return reinterpret_cast<const uint64_t*>(
             c.buffers[c.rank] + readyLineOffset(c.layout, l.channel, peerIndex(c.rank, source, c.nranks), l.lane)) +
         chunk % c.layout.slots;
}

// Acks a receiver `peer` wrote into our buffer: how many of our chunks it has consumed.
__device__ __forceinline__ const uint64_t* localAckFlag(const LaneRef& l, int peer) {
  const DeviceComm& c = *l.comm;
  return reinterpret_cast<const uint64_t*>(
      c.buffers[c.rank] + ackLineOffset(c.layout, l.channel, peerIndex(c.rank, peer, c.nranks), l.lane));
}

__device__ __forceinline__ uint64_t* peerAckFlag(const LaneRef& l, int source) {
  const DeviceComm& c = *l.comm;
  return reinterpret_cast<uint64_t*>(
      c.buffers[source] + ackLineOffset(c.layout, l.channel, peerIndex(source, c.rank, c.nranks), l.lane));
}

__device__ __forceinline__ uint64_t& chunkCounter(const LaneRef& l, bool recv, int peer) {
  return l.comm->chunkCounters[chunkCounterIndex(recv ? 1 : 0, l.channel, peer, l.lane)];
}

// The sources of a fold in rank order: our own data at our rank, peer i's slot at peers[i].
// Written with compile-time indices only (a select per rank), so with a compile-time rank count
// the arrays stay in registers.
__device__ __forceinline__ void orderByRank(const char* own, const LaneRef& l, const int* peers,
                                            const uint64_t* chunk, int n, const char** srcs) {
  const char* peerSrc[kMaxPeerRanks];
  for (int i = 0; i < n - 1; ++i) peerSrc[i] = localSlot(l, peers[i], chunk[i]);
  for (int r = 0; r < n; ++r) {
    const char* p = own;
    for (int i = 0; i < n - 1; ++i) p = peers[i] == r ? peerSrc[i] : p;
    srcs[r] = p;
  }
}

// --- block steps -----------------------------------------------------------------------------

// Waits until every peer in `peers` has freed the slot for chunk number `chunk[p]`.
__device__ __forceinline__ bool waitSlotsFree(const LaneRef& l, const int* peers, int npeers,
                                             const uint64_t* chunk) {
  bool ok = true;
  if (threadIdx.x == 0) {
    for (int i = 0; i < npeers && ok; ++i) {
      const uint64_t slots = l.comm->layout.slots;
      if (chunk[i] >= slots) ok = waitFlagAtLeast(localAckFlag(l, peers[i]), chunk[i] - slots + 1, *l.comm);
    }
  }
  return shareVerdict(ok);
}

// Waits until chunk `chunk[p]` from every source in `sources` is in our slots.
__device__ __forceinline__ bool waitChunksReady(const LaneRef& l, const int* sources, int nsources,
                                               const uint64_t* chunk) {
  bool ok = true;
  if (threadIdx.x == 0) {
    for (int i = 0; i < nsources && ok; ++i) {
      ok = waitFlagAtLeast(localReadyFlag(l, sources[i], chunk[i]), chunk[i] + 1, *l.comm);
    }
  }
  return shareVerdict(ok);
}

// After the block filled the peers' slots: raise their ready flags.
__device__ __forceinline__ void publishChunks(const LaneRef& l, const int* peers, int npeers,
                                              const uint64_t* chunk) {
  __syncthreads();  // every thread's stores precede thread 0's release (cumulative at .sys)
  if (threadIdx.x == 0) {
    for (int i = 0; i < npeers; ++i) storeReleaseSys(peerReadyFlag(l, peers[i], chunk[i]), chunk[i] + 1);
  }
}

// After the block consumed the chunks: tell the senders their slots are free.
__device__ __forceinline__ void ackChunks(const LaneRef& l, const int* sources, int nsources,
                                          const uint64_t* chunk) {
  __syncthreads();  // every thread finished reading the slots
  if (threadIdx.x == 0) {
    for (int i = 0; i < nsources; ++i) storeReleaseSys(peerAckFlag(l, sources[i]), chunk[i] + 1);
  }
}

// Every source but ours (rank order) is a peer's slot.
__device__ __forceinline__ uint32_t allSlotsButRank(int nsrc, int rank) {
  return ((1u << nsrc) - 1u) & ~(1u << rank);
}

// --- the direct kernels' lanes ----------------------------------------------------------------

// A lane of a direct (AllGather / ReduceScatter) chunked kernel: blocks [0, lanes) send (role 0),
// blocks [lanes, 2 * lanes) receive (role 1), one channel; peers in ring order from rank + 1.
// chunk[i]: the next chunk number with peers[i], carried on the device from launch to launch.
// kRanks: the rank count when known at compile time (2), else 0, so the arrays stay in registers.
template <int kRanks>
struct DirectLane {
  LaneRef lane;
  int lanes;
  int role;
  int n;
  int npeers;
  int peers[kMaxPeerRanks];
  uint64_t chunk[kMaxPeerRanks];

  __device__ __forceinline__ explicit DirectLane(const DeviceComm& comm)
      : lane{&comm, 0, static_cast<int>(blockIdx.x % (gridDim.x / 2))},
        lanes(gridDim.x / 2),
        role(blockIdx.x / (gridDim.x / 2)),
        n(kRanks ? kRanks : comm.nranks),
        npeers(n - 1) {
    for (int i = 0; i < npeers; ++i) {
      peers[i] = (comm.rank + 1 + i) % n;
      chunk[i] = chunkCounter(lane, role == 1, peers[i]);
    }
  }

  __device__ __forceinline__ void advance() {
    for (int i = 0; i < npeers; ++i) ++chunk[i];
  }

  // End of the lane's work: the counters persist for the next launch (and graph replay). A lane
  // that stopped early (abort, or peers that called something else) leaves them: the
  // communicator is unusable from then on.
  __device__ __forceinline__ void finish(bool ok) {
    if (threadIdx.x != 0 || !ok) return;
    for (int i = 0; i < npeers; ++i) chunkCounter(lane, role == 1, peers[i]) = chunk[i];
  }
};

// --- data movement ---------------------------------------------------------------------------

constexpr int kUnroll = 4;

// dsts[k][0..len) = transform(src[0..len)) for k < ndst, block-wide, 16-byte vectors. `srcPeer`:
// the source is one of our slots that peers write into (always 16-byte aligned; read past L1).
// `transform`: Unchanged, or ScaleOwn for our own data on its way to a reducing peer.
// kDst: ndst when known at compile time (else 0), so dsts[] stays in registers.
template <int kDst = 0, typename Transform = Unchanged>
__device__ __forceinline__ void copyChunk(const char* src, bool srcPeer, char* const* dsts, int ndstRuntime,
                                          size_t len, Transform transform = Transform()) {
  const int ndst = kDst ? kDst : ndstRuntime;
  const bool srcAligned = isAligned(src, 16);
  bool aligned = srcAligned;
  for (int k = 0; k < ndst; ++k) aligned = aligned && isAligned(dsts[k], 16);
  const size_t stride = static_cast<size_t>(blockDim.x) * 16;
  size_t off = static_cast<size_t>(threadIdx.x) * 16;
  if (aligned) {
    for (; off + (kUnroll - 1) * stride + 16 <= len; off += kUnroll * stride) {
      uint4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const char* p = src + off + u * stride;
        v[u] = transform(srcPeer ? load16Peer(p) : *reinterpret_cast<const uint4*>(p));
      }
#pragma unroll
      for (int k = 0; k < ndst; ++k) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) *reinterpret_cast<uint4*>(dsts[k] + off + u * stride) = v[u];
      }
    }
  }
  // The rest: misaligned buffers, and the last partial vector of the chunk.
  for (; off < len; off += stride) {
    const int nbytes = len - off < 16 ? static_cast<int>(len - off) : 16;
    const uint4 v = transform(srcPeer ? load16Peer(src + off) : load16(src + off, nbytes, srcAligned));
    for (int k = 0; k < ndst; ++k) store16(dsts[k] + off, v, nbytes, isAligned(dsts[k], 16));
  }
}

constexpr int kReduceUnroll = 2;

// dsts[k][0..len) = fold over srcs[0..nsrc) in order (rank order), block-wide. Bit s of
// `slotSources` set: srcs[s] is a slot peers wrote into (16-byte aligned, read past L1; already
// scaled by its producer); clear: a buffer of ours at any alignment (plain loads; scaled here).
// kSrc/kDst: nsrc/ndst when known at compile time (else 0), so the arrays stay in registers.
template <int kSrc, int kDst, typename T, RedKind K>
__device__ __forceinline__ void reduceChunk(const Reducer<T, K>& red, const char* const* srcs,
                                            int nsrcRuntime, uint32_t slotSources, char* const* dsts,
                                            int ndstRuntime, size_t len) {
  using P = Pack<T, 16>;
  const int nsrc = kSrc ? kSrc : nsrcRuntime;
  const int ndst = kDst ? kDst : ndstRuntime;
  bool aligned = true;
  for (int s = 0; s < nsrc; ++s) aligned = aligned && isAligned(srcs[s], 16);
  for (int k = 0; k < ndst; ++k) aligned = aligned && isAligned(dsts[k], 16);
  const size_t stride = static_cast<size_t>(blockDim.x) * 16;
  size_t off = static_cast<size_t>(threadIdx.x) * 16;
  if (aligned) {
    for (; off + (kReduceUnroll - 1) * stride + 16 <= len; off += kReduceUnroll * stride) {
      P acc[kReduceUnroll];
#pragma unroll
      for (int s = 0; s < nsrc; ++s) {
        uint4 v[kReduceUnroll];
#pragma unroll
        for (int u = 0; u < kReduceUnroll; ++u) {
          const char* p = srcs[s] + off + u * stride;
          v[u] = (slotSources >> s) & 1 ? load16Peer(p) : *reinterpret_cast<const uint4*>(p);
        }
#pragma unroll
        for (int u = 0; u < kReduceUnroll; ++u) accumulate(red, acc[u], toPack<T, 16>(v[u]), s == 0, !((slotSources >> s) & 1));
      }
#pragma unroll
      for (int u = 0; u < kReduceUnroll; ++u) finish(red, acc[u]);
#pragma unroll
      for (int k = 0; k < ndst; ++k) {
#pragma unroll
        for (int u = 0; u < kReduceUnroll; ++u)
          *reinterpret_cast<uint4*>(dsts[k] + off + u * stride) = fromPack<uint4>(acc[u]);
      }
    }
  }
  for (; off < len; off += stride) {
    const int nbytes = len - off < 16 ? static_cast<int>(len - off) : 16;
    P acc;
    for (int s = 0; s < nsrc; ++s) {
      const uint4 v = (slotSources >> s) & 1 ? load16Peer(srcs[s] + off)
                                             : load16(srcs[s] + off, nbytes, isAligned(srcs[s], 16));
      accumulate(red, acc, toPack<T, 16>(v), s == 0, !((slotSources >> s) & 1));
    }
    finish(red, acc);
    for (int k = 0; k < ndst; ++k) store16(dsts[k] + off, fromPack<uint4>(acc), nbytes, isAligned(dsts[k], 16));
  }
}

}  // namespace dev
}  // namespace flashccl
