// The MSCCL executor kernel (executor.h): block b runs thread block b of this rank's program.
//
// Per iteration (Simple tiles the chunks; LL and LL128 always run one iteration), each block
// walks its transmissions in order: wait for its dependencies, move the data, publish its step.
// A flag value is (launch sequence, iteration, XML step) packed so that later means larger:
// waiting for "at least" is right for any later step, and a previous launch's flags are always
// smaller, so flags are never cleared.
#include "algo/device/chunk_pipeline.cuh"
#include "algo/device/ll_protocol.cuh"
#include "algo/device/memory_ops.cuh"
#include "algo/device/reduce_ops.cuh"
#include "algo/device/type_dispatch.cuh"
#include "algo/launch_common.h"
#include "msccl/executor.h"

namespace flashccl::msccl {
namespace {

using namespace dev;

// Bits of a dependency flag: launch sequence 40, iteration 16, step 8 (validated steps < 64).
__device__ __forceinline__ uint64_t stepFlag(uint64_t sequence, uint32_t iteration, int step) {
  return (sequence << 24) | (static_cast<uint64_t>(iteration) << 8) | static_cast<uint64_t>(step);
}

struct BlockState {
  const DeviceComm* comm;
  const ExecLaunch* args;
  ExecThreadBlock tb;
  Launch launch;
  LaneRef sendLane;     // Simple: the chunk lane of the send connection
  LaneRef recvLane;
  uint64_t sendChunk;   // Simple: chunks sent / received on those lanes so far
  uint64_t recvChunk;
  uint32_t sendStream;  // LL / LL128: chunks into this launch's connection streams so far
  uint32_t recvStream;
};

__device__ __forceinline__ char* operand(const ExecLaunch& a, int buffer, int chunk) {
  char* base = buffer == static_cast<int>(BufferKind::kInput)    ? const_cast<char*>(a.input)
               : buffer == static_cast<int>(BufferKind::kOutput) ? a.output
                                                                 : a.scratch;
  return base + static_cast<size_t>(chunk) * a.shape.chunkBytes;
}

// What a send/receive step touches: which sides, and its local operands (null when unused).
struct StepIo {
  bool sends, receives, reads, writes;
  const char* src;
  char* dst;
};

__device__ __forceinline__ StepIo stepIo(const ExecLaunch& a, const ExecStep& step) {
  const StepType type = static_cast<StepType>(step.type);
  StepIo io;
  io.sends = stepSends(type);
  io.receives = stepReceives(type);
  io.reads = stepReadsSource(type);
  io.writes = stepWritesDestination(type);
  io.src = io.reads ? operand(a, step.srcBuf, step.srcOff) : nullptr;
  io.dst = io.writes ? operand(a, step.dstBuf, step.dstOff) : nullptr;
  return io;
}

// The byte ranges (relative to each operand's first chunk) a transmission of `count` chunks
// covers in `iteration`: all its chunks at once when a chunk is one tile, else one tile of each.
template <typename Fn>
__device__ __forceinline__ bool forEachRange(const ExecLaunch& a, int count, uint32_t iteration, Fn&& fn) {
  const ExecCallShape& s = a.shape;
  if (s.iterations == 1) return fn(size_t(0), static_cast<size_t>(count) * s.chunkBytes);
  const size_t start = static_cast<size_t>(iteration) * s.tileBytes;
  const size_t len = s.chunkBytes - start < s.tileBytes ? s.chunkBytes - start : s.tileBytes;
  for (int c = 0; c < count; ++c) {
    if (!fn(static_cast<size_t>(c) * s.chunkBytes + start, len)) return false;
  }
  return true;
}

// --- dependencies ------------------------------------------------------------------------------

__device__ __forceinline__ bool waitDependencies(const BlockState& st, const ExecStep& step,
                                                 uint32_t iteration) {
  bool ok = true;
  if (threadIdx.x < step.depCount) {
    const ExecDependency d = imageDependencies(st.args->image)[step.depBegin + threadIdx.x];
    ok = waitFlagAtLeast(&st.comm->threadBlockFlags[d.tb], stepFlag(st.launch.number, iteration, d.step),
                         *st.comm);
  }
  return __syncthreads_and(ok) != 0;
}

__device__ __forceinline__ void publishStep(const BlockState& st, int step, uint32_t iteration) {
  __syncthreads();  // every thread's writes of this step precede the release
  if (threadIdx.x == 0) {
    storeReleaseSys(&st.comm->threadBlockFlags[blockIdx.x], stepFlag(st.launch.number, iteration, step));
  }
}

// --- local steps (cpy, re), the same for every protocol -----------------------------------------

template <typename T, RedKind K>
__device__ bool runLocalStep(const BlockState& st, const Reducer<T, K>& red, const ExecStep& step,
                             uint32_t iteration) {
  const ExecLaunch& a = *st.args;
  char* dst = operand(a, step.dstBuf, step.dstOff);
  if (step.type == static_cast<uint8_t>(StepType::kCopy)) {
    const char* src = operand(a, step.srcBuf, step.srcOff);
    return forEachRange(a, step.count, iteration, [&](size_t rel, size_t len) {
      char* d = dst + rel;
      copyChunk<1>(src + rel, false, &d, 1, len);
      __syncthreads();
      return true;
    });
  }
  // re: dst = op(dst, src1, src2, ...), sources in XML order.
  const int16_t* offsets = imageReduceOffsets(a.image) + step.reduceBegin;
  const int nsrc = 1 + step.reduceCount;
  return forEachRange(a, step.count, iteration, [&](size_t rel, size_t len) {
    const char* srcs[1 + kMaxReduceFusion];
    srcs[0] = dst + rel;
    for (int i = 0; i < step.reduceCount; ++i) srcs[1 + i] = operand(a, step.srcBuf, offsets[i]) + rel;
    char* d = dst + rel;
    reduceChunk<0, 1>(red, srcs, nsrc, 0u, &d, 1, len);
    __syncthreads();
    return true;
  });
}

// --- Simple: chunk slots with ready/ack counters ------------------------------------------------

template <typename T, RedKind K>
__device__ bool runSimpleStep(BlockState& st, const Reducer<T, K>& red, const ExecStep& step,
                              uint32_t iteration) {
  const ExecLaunch& a = *st.args;
  const StepIo io = stepIo(a, step);
  const bool sends = io.sends, receives = io.receives, reads = io.reads, writes = io.writes;
  const char* src = io.src;
  char* dst = io.dst;
  const size_t pieceBytes = st.comm->layout.chunkBytes;
  const int sendPeer = st.tb.sendPeer, recvPeer = st.tb.recvPeer;
  return forEachRange(a, step.count, iteration, [&](size_t rel, size_t len) {
    for (size_t piece = 0; piece < len; piece += pieceBytes) {
      const size_t n = len - piece < pieceBytes ? len - piece : pieceBytes;
      const size_t at = rel + piece;
      if (receives && !waitChunksReady(st.recvLane, &recvPeer, 1, &st.recvChunk)) return false;
      if (sends && !waitSlotsFree(st.sendLane, &sendPeer, 1, &st.sendChunk)) return false;
      const char* slot = receives ? localSlot(st.recvLane, recvPeer, st.recvChunk) : nullptr;
      char* dsts[2];
      int ndst = 0;
      if (writes) dsts[ndst++] = dst + at;
      if (sends) dsts[ndst++] = peerSlot(st.sendLane, sendPeer, st.sendChunk);
      if (receives && reads) {
        const char* srcs[2] = {slot, src + at};  // op(received, ours), as MSCCL's primitives do
        reduceChunk<2, 0>(red, srcs, 2, 1u, dsts, ndst, n);
      } else {
        copyChunk(receives ? slot : src + at, receives, dsts, ndst, n);
      }
      if (sends) {
        publishChunks(st.sendLane, &sendPeer, 1, &st.sendChunk);
        ++st.sendChunk;
      }
      if (receives) {
        ackChunks(st.recvLane, &recvPeer, 1, &st.recvChunk);
        ++st.recvChunk;
      }
      __syncthreads();  // thread 0's flag work is done before the next piece reuses the verdicts
    }
    return true;
  });
}

// --- LL: 16-byte packets in the connection's stretch of the LL slot -----------------------------

template <typename T, RedKind K>
__device__ __forceinline__ uint64_t combine8(const Reducer<T, K>& red, uint64_t received, uint64_t ours) {
  Pack<T, 8> acc;
  accumulate(red, acc, toPack<T, 8>(received), true, false);
  accumulate(red, acc, toPack<T, 8>(ours), false, true);
  finish(red, acc);
  return fromPack<uint64_t>(acc);
}

// 8 bytes of a buffer another block of this launch may have written: past L1 when aligned.
__device__ __forceinline__ uint64_t loadShared8(const char* p, int nbytes, bool aligned) {
  if (aligned && nbytes == 8) return __ldcg(reinterpret_cast<const unsigned long long*>(p));
  return load8(p, nbytes, aligned);
}

template <typename T, RedKind K>
__device__ bool runLLStep(BlockState& st, const Reducer<T, K>& red, const ExecStep& step) {
  const ExecLaunch& a = *st.args;
  const DeviceComm& comm = *st.comm;
  const StepIo io = stepIo(a, step);
  const bool sends = io.sends, receives = io.receives, reads = io.reads, writes = io.writes;
  const char* src = io.src;
  char* dst = io.dst;
  const bool srcAligned = isAligned(src, 8), dstAligned = isAligned(dst, 8);
  const size_t len = static_cast<size_t>(step.count) * a.shape.chunkBytes;
  const size_t stride = llChunkStride(a.shape.chunkBytes);
  char* out = sends ? llPeerSlot(comm, st.tb.sendPeer, st.launch.parity) +
                          (st.tb.sendStreamChunk + st.sendStream) * stride
                    : nullptr;
  const char* in = receives ? llLocalSlot(comm, st.tb.recvPeer, st.launch.parity) +
                                  (st.tb.recvStreamChunk + st.recvStream) * stride
                            : nullptr;
  bool ok = true;
  const size_t npackets = (len + 7) / 8;
  for (size_t p = threadIdx.x; p < npackets && ok; p += blockDim.x) {
    const int nbytes = bytesInPack(len, p * 8, 8);
    uint64_t v = 0;
    if (receives) ok = llLoad(in + p * 16, st.launch.flag, comm, &v);
    if (!ok) break;
    if (reads) {
      const uint64_t ours = loadShared8(src + p * 8, nbytes, srcAligned);
      v = receives ? combine8(red, v, ours) : ours;
    }
    if (writes) store8(dst + p * 8, v, nbytes, dstAligned);
    if (sends) llStore(out + p * 16, v, st.launch.flag);
  }
  if (sends) st.sendStream += step.count;
  if (receives) st.recvStream += step.count;
  return __syncthreads_and(ok) != 0;
}

// --- LL128: 128-byte lines, 8 threads each; the 8th thread's second word is the flag -------------

__device__ __forceinline__ void store128Line(char* p, uint64_t lo, uint64_t hi) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1,%2};" ::"l"(p), "l"(lo), "l"(hi) : "memory");
}

__device__ __forceinline__ void load128Line(const char* p, uint64_t* lo, uint64_t* hi) {
  asm volatile("ld.volatile.global.v2.u64 {%0,%1}, [%2];" : "=l"(*lo), "=l"(*hi) : "l"(p) : "memory");
}

template <typename T, RedKind K>
__device__ bool runLL128Step(BlockState& st, const Reducer<T, K>& red, const ExecStep& step) {
  const ExecLaunch& a = *st.args;
  const DeviceComm& comm = *st.comm;
  const StepIo io = stepIo(a, step);
  const bool sends = io.sends, receives = io.receives, reads = io.reads, writes = io.writes;
  const char* src = io.src;
  char* dst = io.dst;
  const bool srcAligned = isAligned(src, 8), dstAligned = isAligned(dst, 8);
  const size_t len = static_cast<size_t>(step.count) * a.shape.chunkBytes;
  const size_t stride = ll128ChunkStride(a.shape.chunkBytes);
  char* out = sends ? comm.buffers[st.tb.sendPeer] +
                          ll128SlotOffset(comm.layout, peerIndex(st.tb.sendPeer, comm.rank, comm.nranks),
                                          st.launch.parity) +
                          (st.tb.sendStreamChunk + st.sendStream) * stride
                    : nullptr;
  const char* in = receives ? comm.buffers[comm.rank] +
                                  ll128SlotOffset(comm.layout, peerIndex(comm.rank, st.tb.recvPeer, comm.nranks),
                                                  st.launch.parity) +
                                  (st.tb.recvStreamChunk + st.recvStream) * stride
                            : nullptr;
  const uint64_t flag = st.launch.flag;  // < 2^32: never an LL packet's {data, flag} word
  const int lane = threadIdx.x & 31, j = threadIdx.x & 7;
  const bool flagThread = j == 7;
  const size_t lines = (len + 119) / 120;
  const size_t linesPerPass = blockDim.x / 8;
  bool ok = true;
  // Whole warps iterate together (the flag check is a warp vote); lines past the end idle.
  for (size_t base = (threadIdx.x / 32) * 4; base < lines && ok; base += linesPerPass) {
    const size_t line = base + lane / 8;
    const bool active = line < lines;
    const size_t at = line * 120 + j * 16;  // data offset of this thread's part
    const int nlo = active ? bytesInPack(len, at < len ? at : len, 8) : 0;
    const int nhi = active && !flagThread && at + 8 < len ? bytesInPack(len, at + 8, 8) : 0;
    uint64_t lo = 0, hi = 0;
    if (receives) {
      uint32_t spins = 0;
      while (true) {
        if (active) load128Line(in + line * 128 + j * 16, &lo, &hi);
        const bool missing = active && flagThread && hi != flag;
        if (!__any_sync(0xffffffffu, missing)) break;
        if (++spins == kAbortCheckInterval) {
          spins = 0;
          if (!keepWaiting(comm)) ok = false;
          if (__any_sync(0xffffffffu, !ok)) break;
        }
      }
      ok = __all_sync(0xffffffffu, ok);
      if (!ok) break;
    }
    if (active && at < len) {
      if (reads) {
        const uint64_t oursLo = loadShared8(src + at, nlo, srcAligned);
        const uint64_t oursHi = nhi > 0 ? loadShared8(src + at + 8, nhi, srcAligned) : 0;
        lo = receives ? combine8(red, lo, oursLo) : oursLo;
        if (!flagThread) hi = receives ? combine8(red, hi, oursHi) : oursHi;
      }
      if (writes) {
        store8(dst + at, lo, nlo, dstAligned);
        if (nhi > 0) store8(dst + at + 8, hi, nhi, dstAligned);
      }
    }
    if (sends && active) store128Line(out + line * 128 + j * 16, lo, flagThread ? flag : hi);
  }
  if (sends) st.sendStream += step.count;
  if (receives) st.recvStream += step.count;
  return __syncthreads_and(ok) != 0;
}

// --- the kernel -----------------------------------------------------------------------------------

// Two blocks per multiprocessor: DeviceComm::maxResidentBlocks, which supports() checks the
// program's thread block count against, counts on it.
template <typename T, RedKind K>
__global__ void __launch_bounds__(kKernelThreads, 2)
    mscclExecutorKernel(const __grid_constant__ DeviceComm comm, const __grid_constant__ ExecLaunch args) {
  BlockState st;
  st.comm = &comm;
  st.args = &args;
  st.launch = beginLaunch(comm);
  st.tb = imageThreadBlocks(args.image)[blockIdx.x];
  const int lanes = comm.layout.lanes;
  st.sendLane = {&comm, st.tb.channel / lanes, st.tb.channel % lanes};
  st.recvLane = st.sendLane;
  const Protocol proto = static_cast<Protocol>(args.image->proto);
  const bool simple = proto == Protocol::kSimple;
  // Only this block uses these lanes' counters in this launch; every thread keeps a copy.
  st.sendChunk = simple && st.tb.sendPeer >= 0 ? chunkCounter(st.sendLane, false, st.tb.sendPeer) : 0;
  st.recvChunk = simple && st.tb.recvPeer >= 0 ? chunkCounter(st.recvLane, true, st.tb.recvPeer) : 0;
  st.sendStream = 0;
  st.recvStream = 0;
  const Reducer<T, K> red(args.reduce.arg);
  const ExecStep* steps = imageSteps(args.image) + st.tb.stepBegin;

  bool ok = peersAgree(comm, st.launch);
  for (uint32_t it = 0; it < args.shape.iterations && ok; ++it) {
    for (int i = 0; i < st.tb.stepCount && ok; ++i) {
      const ExecStep step = steps[i];
      if (step.depCount > 0) ok = waitDependencies(st, step, it);
      if (!ok) break;
      const StepType type = static_cast<StepType>(step.type);
      if (type == StepType::kCopy || type == StepType::kReduce) {
        ok = runLocalStep(st, red, step, it);
      } else if (simple) {
        ok = runSimpleStep(st, red, step, it);
      } else if (proto == Protocol::kLL) {
        ok = runLLStep(st, red, step);
      } else {
        ok = runLL128Step(st, red, step);
      }
      if (ok && step.publishStep >= 0) publishStep(st, step.publishStep, it);
    }
  }
  if (ok && simple && threadIdx.x == 0) {
    if (st.tb.sendPeer >= 0) chunkCounter(st.sendLane, false, st.tb.sendPeer) = st.sendChunk;
    if (st.tb.recvPeer >= 0) chunkCounter(st.recvLane, true, st.tb.recvPeer) = st.recvChunk;
  }
  if (!ok) reportAbort(comm, st.launch);
  endLaunch(comm, st.launch);
}

}  // namespace

bool executorRunsReduction(dev::RedKind kind) {
  return kind == dev::RedKind::kSum || kind == dev::RedKind::kProd || kind == dev::RedKind::kMin ||
         kind == dev::RedKind::kMax;
}

cudaError_t launchExecutor(const DeviceComm& comm, const ExecLaunch& launch, cudaStream_t stream) {
  cudaError_t err = cudaErrorInvalidValue;
  dev::withElementType(launch.dtype, [&](auto typeTag) {
    using T = typename decltype(typeTag)::type;
    auto go = [&](auto kindTag) {
      err = launchCooperativeKernel(mscclExecutorKernel<T, decltype(kindTag)::value>, launch.threadBlocks, stream, comm, launch);
    };
    switch (launch.reduce.kind) {
      case dev::RedKind::kSum: go(dev::KindTag<dev::RedKind::kSum>{}); break;
      case dev::RedKind::kProd: go(dev::KindTag<dev::RedKind::kProd>{}); break;
      case dev::RedKind::kMin: go(dev::KindTag<dev::RedKind::kMin>{}); break;
      case dev::RedKind::kMax: go(dev::KindTag<dev::RedKind::kMax>{}); break;
      default: break;
    }
  });
  return err;
}

}  // namespace flashccl::msccl
