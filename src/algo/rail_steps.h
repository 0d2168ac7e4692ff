// The launch-time steps of the algorithms across nodes that are not our kernels: the rail stream
// forked off the call's stream and joined back to it, and the real NCCL's calls on the rail.
//
// Inter-node steps run on the rail stream (Hierarchy::railStream) so that our kernels of the next
// window overlap NCCL's step of this one. An event recorded on one stream and waited on by the
// other is, in a CUDA-graph capture, an edge between the graph's two branches, so every replay
// keeps the order; every algorithm joins the rail stream back before its last kernel, as a
// capture requires. Events are reused: each is waited on before it is recorded again (railDone
// alternates between two, so two steps may be in flight).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "algo/hierarchy.h"
#include "algo/reduce_spec.h"
#include "base/coll_call.h"

namespace flashccl {

class CommView;

// The rail stream waits for everything enqueued on the call's stream so far.
ncclResult_t forkRailStream(const Hierarchy& h, cudaStream_t callStream);
// On the rail stream, after inter-node step `step`.
ncclResult_t markRailStep(const Hierarchy& h, int step);
// The call's stream waits for inter-node step `step` (and, by the rail stream's order, every
// step before it).
ncclResult_t awaitRailStep(const Hierarchy& h, int step, cudaStream_t callStream);

// The call's reduction for our node phases (*spec, makeReduceSpec) and for NCCL between nodes
// (*railOp): a sum for PreMulSum (and floating ncclAvg), whose scaling our node phase already
// applied to each rank's own data; the same op for sum, prod, min and max. False when our kernels
// cannot run the op, and for integer ncclAvg, which divides once after the whole sum, a step an
// inter-node reduction of partial sums cannot take.
bool reductionAcrossNodes(const CollCall& call, const CommView& ctx, ReduceSpec* spec, ncclRedOp_t* railOp);

// The real NCCL's calls of one inter-node step, as one NCCL group on the rail stream, each made
// under a ForwardScope so our own exports pass it through. The first error is kept; end() ends
// the group (always: an NCCL group must be closed), waits until NCCL has enqueued it, and
// returns the error.
class RailGroup {
 public:
  explicit RailGroup(const Hierarchy& h);
  ~RailGroup();
  RailGroup(const RailGroup&) = delete;
  RailGroup& operator=(const RailGroup&) = delete;

  // This rank's call record to every rank of the rail (Hierarchy::records). The first step of
  // every call carries it (rail_agreement.h).
  void gatherRecords();
  void allReduce(char* data, size_t count, ncclDataType_t dtype, ncclRedOp_t op);
  void reduceScatter(const char* in, char* out, size_t recvCount, ncclDataType_t dtype, ncclRedOp_t op);
  void allGather(const char* in, char* out, size_t bytes);
  // Sends `bytes` from `send` to rail rank `railRank` and receives as many from it into `recv`.
  void exchange(int railRank, const char* send, char* recv, size_t bytes);
  ncclResult_t end();

 private:
  void keep(ncclResult_t result);

  const Hierarchy& h_;
  bool open_ = false;
  bool inProgress_ = false;  // a call or the group's end said ncclInProgress
  ncclResult_t result_ = ncclSuccess;
};

}  // namespace flashccl
