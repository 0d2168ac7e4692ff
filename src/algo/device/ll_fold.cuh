// The receiving half of the LL reducing kernels (AllReduce one-shot, ReduceScatter direct): every
// peer has pushed its contribution to us as LL packets, already scaled by its own PreMulSum
// scalar; each thread folds its packets of all ranks' contributions in rank order (ours read from
// `own` and scaled here) and writes the result to `out`. Every rank folds in the same order, so
// results are bitwise identical on all ranks.
#pragma once

#include <cstdint>

#include "algo/device/ll_protocol.cuh"
#include "algo/device/memory_ops.cuh"
#include "algo/device/reduce_ops.cuh"
#include "transport/p2p/device_comm.h"

namespace flashccl {
namespace dev {

// Packets first, first + step, ... below ceil(bytes / 8), found `slotBase` bytes into each
// peer's slot. False when a wait was aborted (the caller reports it). `out` may be `own` (in
// place): this thread alone reads those packets of `own`, here and in the caller's push loop.
template <typename T, RedKind K>
__device__ __forceinline__ bool llFoldPackets(const DeviceComm& comm, const Launch& launch,
                                              const Reducer<T, K>& red, const char* own, char* out,
                                              size_t bytes, size_t slotBase, size_t first, size_t step) {
  const size_t npackets = (bytes + 7) / 8;
  const bool ownAligned = isAligned(own, 8);
  const bool outAligned = isAligned(out, 8);
  bool ok = true;
  for (size_t p = first; p < npackets && ok; p += step) {
    const int nbytes = bytesInPack(bytes, p * 8, 8);
    Pack<T, 8> acc;
    for (int r = 0; r < comm.nranks && ok; ++r) {
      uint64_t v;
      if (r == comm.rank) {
        v = load8(own + p * 8, nbytes, ownAligned);
      } else {
        ok = llLoad(llLocalSlot(comm, r, launch.parity) + slotBase + p * 16, launch.flag, comm, &v);
      }
      accumulate(red, acc, toPack<T, 8>(v), r == 0, r == comm.rank);
    }
    finish(red, acc);
    if (ok) store8(out + p * 8, fromPack<uint64_t>(acc), nbytes, outAligned);
  }
  return ok;
}

}  // namespace dev
}  // namespace flashccl
