// AllReduce across nodes for small messages: two of our launches and one NCCL step, whatever the
// node count.
//   1. one-shot all-reduce inside the node (our LL kernel): every local rank gets the node's sum
//      of the whole buffer, into its staging slot for its node;
//   2. AllGather of the node sums between nodes, on every rail at once (the real NCCL): every rank
//      gets every node's sum;
//   3. fold of the node sums in node order (our kernel), into the output.
// Each rail carries the whole buffer instead of a 1/G shard (allreduce_hier): more bytes between
// nodes for one step instead of three phases, which is what small messages want.
//
// Results: inside a node the fold order is fixed (rank order) and across nodes too (node order),
// and every rank folds the same node sums: identical bits on all ranks, run after run, for every
// op. They can differ from a plain NCCL AllReduce where the order of operations matters:
// floating-point sums (also ncclAvg and PreMulSum) and products over more than two ranks.
#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"
#include "algo/call_kernels.h"
#include "algo/comm_view.h"
#include "algo/device/launch_protocol.cuh"
#include "algo/device/memory_ops.cuh"
#include "algo/device/reduce_ops.cuh"
#include "algo/device/type_dispatch.cuh"
#include "algo/hierarchy_plan.h"
#include "algo/launch_common.h"
#include "algo/node_phases.h"
#include "algo/rail_agreement.h"
#include "algo/rail_steps.h"
#include "base/check.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {
namespace {

using namespace dev;

// out = fold over n of sums + n * stride, in node order. The sums are already scaled (PreMulSum
// scales each rank's own data in step 1), so the fold only combines and, for integer ncclAvg,
// divides once at the end. The call's agreement (node headers, rail records) comes first.
template <typename T, RedKind K>
__global__ void __launch_bounds__(kKernelThreads)
    foldNodeSumsKernel(DeviceComm comm, const char* sums, size_t stride, int nnodes, char* out, size_t bytes,
                       RedArg arg) {
  const Launch launch = beginLaunch(comm);
  if (peersAgree(comm, launch)) {
    const Reducer<T, K> red(arg);
    const bool outAligned = isAligned(out, 16);
    const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x * 16;
    for (size_t off = (static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 16; off < bytes; off += step) {
      const int nbytes = bytes - off < 16 ? static_cast<int>(bytes - off) : 16;
      Pack<T, 16> acc;
      for (int n = 0; n < nnodes; ++n) {
        // Staging is ours (cudaMalloc) and stride a multiple of 16: whole vectors but at the end.
        const uint4 v = load16(sums + static_cast<size_t>(n) * stride + off, nbytes, true);
        accumulate(red, acc, toPack<T, 16>(v), n == 0, false);
      }
      finish(red, acc);
      store16(out + off, fromPack<uint4>(acc), nbytes, outAligned);
    }
  }
  endLaunch(comm, launch);
}

// Step 1 reduces inside the node without the final division of integer ncclAvg: it belongs after
// the sum over all nodes (step 3).
ReduceSpec nodeStep(const ReduceSpec& spec) {
  ReduceSpec node = spec;
  if (spec.kind == RedKind::kSumPostDiv) node.kind = RedKind::kSum;
  return node;
}

// Step 3 folds sums that step 1 already scaled: PreMulSum folds as a sum.
ReduceSpec foldStep(const ReduceSpec& spec) {
  ReduceSpec fold = spec;
  if (spec.kind == RedKind::kPreMulSum) fold = ReduceSpec{};
  return fold;
}

size_t sumStride(size_t bytes) { return (bytes + 15) / 16 * 16; }

class AllreduceHierOneshot final : public Algorithm {
 public:
  const char* name() const override { return "allreduce_hier_oneshot"; }
  CollKind kind() const override { return CollKind::kAllReduce; }
  bool spansNodes() const override { return true; }

  bool supports(const CollCall& call, const CommView& ctx) const override {
    ReduceSpec spec;
    if (call.kind != CollKind::kAllReduce || !hierarchyUsable(call, ctx) ||
        !makeReduceSpec(call.op, call.dtype, ctx, &spec)) {
      return false;
    }
    const size_t bytes = call.count * dtypeSize(call.dtype);
    const Hierarchy& h = *ctx.hierarchy();
    return oneshotFits(bytes, deviceComm(ctx)) && static_cast<size_t>(h.nnodes) * sumStride(bytes) <= h.stagingBytes;
  }

  ncclResult_t launch(const CollCall& call, const CommView& ctx) override {
    ReduceSpec spec;
    if (!makeReduceSpec(call.op, call.dtype, ctx, &spec)) return ncclInvalidArgument;
    const Hierarchy& h = *ctx.hierarchy();
    const DeviceComm& comm = deviceComm(ctx);
    const size_t bytes = call.count * dtypeSize(call.dtype);
    const size_t stride = sumStride(bytes);
    char* ownSum = h.staging + static_cast<size_t>(h.node) * stride;

    FCCL_CHECK(launchResult(launchNodeAllReduceOneshot(notLastKernelOfCall(comm), static_cast<const char*>(call.send),
                                                       ownSum, bytes, call.dtype, nodeStep(spec), call.stream),
                            name()));
    FCCL_CHECK(forkRailStream(h, call.stream));
    FCCL_CHECK(stampCallRecord(h, comm.callHeader));
    RailGroup step(h);
    step.gatherRecords();
    step.allGather(ownSum, h.staging, stride);  // in place: ownSum is this rail rank's block
    FCCL_CHECK(step.end());
    FCCL_CHECK(markRailStep(h, 0));
    FCCL_CHECK(awaitRailStep(h, 0, call.stream));

    const ReduceSpec fold = foldStep(spec);
    const DeviceComm checked = withRailRecords(comm, h);
    const int grid = llGridSize((bytes + 15) / 16, comm);
    char* out = static_cast<char*>(call.recv);
    cudaError_t err = cudaErrorInvalidValue;
    withTypeAndRedKind(call.dtype, fold.kind, [&](auto typeTag, auto kindTag) {
      using T = typename decltype(typeTag)::type;
      err = launchKernel(foldNodeSumsKernel<T, decltype(kindTag)::value>, grid, call.stream, checked, h.staging, stride,
                         h.nnodes, out, bytes, fold.arg);
    });
    return launchResult(err, name());
  }
};

}  // namespace

Algorithm* allreduceHierOneshotAlgorithm() {
  static AllreduceHierOneshot algorithm;
  return &algorithm;
}

}  // namespace flashccl
