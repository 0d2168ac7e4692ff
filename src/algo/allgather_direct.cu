// AllGather direct: every rank pushes its input to every peer over NVLink; each rank copies what
// arrives into its output. Small inputs travel as LL packets (one kernel, one trip); larger ones
// stream through the chunk slots with a sender role (one read of the input, n-1 remote stores and
// the local copy) and a receiver role (slot -> output), pipelined per lane.
#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/device/chunk_pipeline.cuh"
#include "algo/device/ll_protocol.cuh"
#include "algo/launch_common.h"
#include "algo/comm_view.h"
#include "base/config.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

using namespace dev;

__global__ void __launch_bounds__(kKernelThreads)
    allgatherLLKernel(DeviceComm comm, const char* in, char* out, size_t bytes) {
  const Launch launch = beginLaunch(comm);
  const size_t npackets = (bytes + 7) / 8;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  char* ownShard = out + static_cast<size_t>(comm.rank) * bytes;
  const bool inPlace = in == ownShard;
  const bool inAligned = isAligned(in, 8);
  const bool ownAligned = isAligned(ownShard, 8);

  for (size_t p = first; p < npackets; p += step) {
    const int nbytes = bytesInPack(bytes, p * 8, 8);
    const uint64_t v = load8(in + p * 8, nbytes, inAligned);
    for (int d = 1; d < comm.nranks; ++d) {
      const int peer = (comm.rank + d) % comm.nranks;
      llStore(llPeerSlot(comm, peer, launch.parity) + p * 16, v, launch.flag);
    }
    if (!inPlace) store8(ownShard + p * 8, v, nbytes, ownAligned);
  }

  bool ok = peersAgree(comm, launch);
  for (int d = 1; d < comm.nranks && ok; ++d) {
    const int source = (comm.rank + comm.nranks - d) % comm.nranks;
    char* shard = out + static_cast<size_t>(source) * bytes;
    const bool aligned = isAligned(shard, 8);
    const char* slot = llLocalSlot(comm, source, launch.parity);
    for (size_t p = first; p < npackets && ok; p += step) {
      uint64_t v;
      ok = llLoad(slot + p * 16, launch.flag, comm, &v);
      if (ok) store8(shard + p * 8, v, bytesInPack(bytes, p * 8, 8), aligned);
    }
  }
  if (!ok) reportAbort(comm, launch);
  endLaunch(comm, launch);
}

// Role 0: senders; role 1: receivers (DirectLane).
template <int kRanks>
__global__ void __launch_bounds__(kKernelThreads, 2)
    allgatherChunkedKernel(const __grid_constant__ DeviceComm comm, const char* in, char* out, size_t bytes, size_t chunkBytes,
                           size_t rounds) {
  const Launch launch = beginLaunch(comm);
  DirectLane<kRanks> d(comm);
  char* ownShard = out + static_cast<size_t>(comm.rank) * bytes;
  bool ok = peersAgree(comm, launch);
  for (size_t t = d.lane.lane; t < rounds && ok; t += d.lanes) {
    const size_t offset = t * chunkBytes;
    const size_t len = bytes - offset < chunkBytes ? bytes - offset : chunkBytes;
    if (d.role == 0) {
      ok = waitSlotsFree(d.lane, d.peers, d.npeers, d.chunk);
      if (!ok) break;
      char* dsts[kMaxPeerRanks + 1];
      int ndst = 0;
      for (int i = 0; i < d.npeers; ++i) dsts[ndst++] = peerSlot(d.lane, d.peers[i], d.chunk[i]);
      if (in != ownShard) dsts[ndst++] = ownShard + offset;
      copyChunk(in + offset, false, dsts, ndst, len);
      publishChunks(d.lane, d.peers, d.npeers, d.chunk);
    } else {
      ok = waitChunksReady(d.lane, d.peers, d.npeers, d.chunk);
      if (!ok) break;
      for (int i = 0; i < d.npeers; ++i) {
        char* dst = out + static_cast<size_t>(d.peers[i]) * bytes + offset;
        copyChunk<1>(localSlot(d.lane, d.peers[i], d.chunk[i]), true, &dst, 1, len);
      }
      ackChunks(d.lane, d.peers, d.npeers, d.chunk);
    }
    d.advance();
  }
  d.finish(ok);
  if (!ok) reportAbort(comm, launch);
  endLaunch(comm, launch);
}

class AllgatherDirect final : public Algorithm {
 public:
  const char* name() const override { return "allgather_direct"; }
  CollKind kind() const override { return CollKind::kAllGather; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    return call.kind == CollKind::kAllGather && peerPathUsable(call, ctx);
  }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    const DeviceComm& comm = deviceComm(ctx);
    const size_t bytes = call.count * dtypeSize(call.dtype);
    const char* in = static_cast<const char*>(call.send);
    char* out = static_cast<char*>(call.recv);
    cudaError_t err;
    if (usesPackets(bytes, comm)) {
      err = launchKernel(allgatherLLKernel, llGridSize((bytes + 7) / 8, ctx), call.stream, comm, in, out, bytes);
    } else {
      const ChunkPlan plan = planChunks(bytes, comm, comm.maxResidentBlocks / 2);
      auto kernel = comm.nranks == 2 ? allgatherChunkedKernel<2> : allgatherChunkedKernel<0>;
      err = launchCooperativeKernel(kernel, 2 * plan.lanes, call.stream, comm, in, out, bytes, plan.chunkBytes, plan.rounds);
    }
    return launchResult(err, name());
  }

 private:
  static bool usesPackets(size_t bytes, const DeviceComm& comm) {
    return bytes <= Config::get().llMaxBytes && bytes <= llPayloadCapacity(comm.layout);
  }
};

}  // namespace

Algorithm* allgatherDirectAlgorithm() {
  static AllgatherDirect algorithm;
  return &algorithm;
}

}  // namespace flashccl
