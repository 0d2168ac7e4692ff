// AllReduce one-shot: every rank pushes its whole input to every peer as LL packets (data and
// flag in one 16-byte store, no separate barrier; PreMulSum inputs scaled by the pusher's own
// scalar), then folds all contributions in rank order.
// One kernel, one NVLink trip: the latency floor for small messages. Every rank computes
// op(x0, x1, ..., xn-1) in the same order, so results are bitwise identical on all ranks.
#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/device/ll_fold.cuh"
#include "algo/device/ll_protocol.cuh"
#include "algo/device/reduce_ops.cuh"
#include "algo/device/type_dispatch.cuh"
#include "algo/launch_common.h"
#include "algo/node_phases.h"
#include "algo/reduce_spec.h"
#include "algo/comm_view.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

template <typename T, dev::RedKind K>
__global__ void __launch_bounds__(kKernelThreads)
    allreduceOneshotKernel(DeviceComm comm, const char* in, char* out, size_t bytes, dev::RedArg arg) {
  using namespace dev;
  const Launch launch = beginLaunch(comm);
  const Reducer<T, K> red(arg);
  const ScaleOwn<T, K> scale{&red};
  const size_t npackets = (bytes + 7) / 8;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  const bool inAligned = isAligned(in, 8);

  // Push every packet of ours to every peer first, so the waits below overlap the peers' pushes.
  for (size_t p = first; p < npackets; p += step) {
    const uint64_t v = scale(load8(in + p * 8, bytesInPack(bytes, p * 8, 8), inAligned));
    for (int d = 1; d < comm.nranks; ++d) {
      const int peer = (comm.rank + d) % comm.nranks;
      llStore(llPeerSlot(comm, peer, launch.parity) + p * 16, v, launch.flag);
    }
  }

  // In place is safe: this thread alone read its packets of `in`, in the push loop above.
  if (peersAgree(comm, launch) && !llFoldPackets(comm, launch, red, in, out, bytes, 0, first, step)) {
    reportAbort(comm, launch);
  }
  endLaunch(comm, launch);
}

class AllreduceOneshot final : public Algorithm {
 public:
  const char* name() const override { return "allreduce_oneshot"; }
  CollKind kind() const override { return CollKind::kAllReduce; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    if (call.kind != CollKind::kAllReduce || !peerPathUsable(call, ctx)) return false;
    ReduceSpec spec;
    if (!makeReduceSpec(call.op, call.dtype, ctx, &spec)) return false;
    return oneshotFits(call.count * dtypeSize(call.dtype), deviceComm(ctx));
  }

  bool usesChunkSlots(const CollCall&, const CommView&) const override { return false; }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    ReduceSpec spec;
    if (!makeReduceSpec(call.op, call.dtype, ctx, &spec)) return ncclInvalidArgument;
    return launchResult(launchNodeAllReduceOneshot(deviceComm(ctx), static_cast<const char*>(call.send),
                                                   static_cast<char*>(call.recv), call.count * dtypeSize(call.dtype),
                                                   call.dtype, spec, call.stream),
                        name());
  }
};

}  // namespace

cudaError_t launchNodeAllReduceOneshot(const DeviceComm& comm, const char* in, char* out, size_t bytes,
                                       ncclDataType_t dtype, const ReduceSpec& spec, cudaStream_t stream) {
  const int grid = llGridSize((bytes + 7) / 8, comm);
  cudaError_t err = cudaErrorInvalidValue;
  dev::withTypeAndRedKind(dtype, spec.kind, [&](auto typeTag, auto kindTag) {
    using T = typename decltype(typeTag)::type;
    err = launchKernel(allreduceOneshotKernel<T, decltype(kindTag)::value>, grid, stream, comm, in, out, bytes, spec.arg);
  });
  return err;
}

Algorithm* allreduceOneshotAlgorithm() {
  static AllreduceOneshot algorithm;
  return &algorithm;
}

}  // namespace flashccl
