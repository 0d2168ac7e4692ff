#include "algo/rail_steps.h"

#include <thread>

#include "base/check.h"
#include "base/real_nccl.h"
#include "base/thread_state.h"

namespace flashccl {

ncclResult_t forkRailStream(const Hierarchy& h, cudaStream_t callStream) {
  FCCL_CUDA_CHECK(cudaEventRecord(h.forked, callStream));
  FCCL_CUDA_CHECK(cudaStreamWaitEvent(h.railStream, h.forked, 0));
  return ncclSuccess;
}

ncclResult_t markRailStep(const Hierarchy& h, int step) {
  FCCL_CUDA_CHECK(cudaEventRecord(h.railDone[step % 2], h.railStream));
  return ncclSuccess;
}

ncclResult_t awaitRailStep(const Hierarchy& h, int step, cudaStream_t callStream) {
  FCCL_CUDA_CHECK(cudaStreamWaitEvent(callStream, h.railDone[step % 2], 0));
  return ncclSuccess;
}

namespace {

bool railReduction(const ReduceSpec& spec, ncclRedOp_t* op) {
  switch (spec.kind) {
    case dev::RedKind::kSum:
    case dev::RedKind::kPreMulSum: *op = ncclSum; return true;
    case dev::RedKind::kProd: *op = ncclProd; return true;
    case dev::RedKind::kMin: *op = ncclMin; return true;
    case dev::RedKind::kMax: *op = ncclMax; return true;
    case dev::RedKind::kSumPostDiv: return false;
  }
  return false;
}

}  // namespace

bool reductionAcrossNodes(const CollCall& call, const CommView& ctx, ReduceSpec* spec, ncclRedOp_t* railOp) {
  return makeReduceSpec(call.op, call.dtype, ctx, spec) && railReduction(*spec, railOp);
}

RailGroup::RailGroup(const Hierarchy& h) : h_(h) {
  const RealNccl* real = realNccl();
  if (real == nullptr || real->ncclGroupStart == nullptr) {
    result_ = ncclSystemError;
    return;
  }
  ForwardScope scope;
  result_ = real->ncclGroupStart();
  open_ = result_ == ncclSuccess;
}

RailGroup::~RailGroup() { end(); }

void RailGroup::keep(ncclResult_t result) {
  if (result == ncclInProgress) {
    inProgress_ = true;
  } else if (result_ == ncclSuccess && result != ncclSuccess) {
    result_ = result;
  }
}

void RailGroup::gatherRecords() {
  allGather(reinterpret_cast<const char*>(h_.records), reinterpret_cast<char*>(h_.records + 1), sizeof(CallRecord));
}

void RailGroup::allReduce(char* data, size_t count, ncclDataType_t dtype, ncclRedOp_t op) {
  if (!open_) return;
  const RealNccl* real = realNccl();
  if (!real->ncclAllReduce) return keep(missingRealFunction("ncclAllReduce"));
  ForwardScope scope;
  keep(real->ncclAllReduce(data, data, count, dtype, op, h_.rail, h_.railStream));
}

void RailGroup::reduceScatter(const char* in, char* out, size_t recvCount, ncclDataType_t dtype, ncclRedOp_t op) {
  if (!open_) return;
  const RealNccl* real = realNccl();
  if (!real->ncclReduceScatter) return keep(missingRealFunction("ncclReduceScatter"));
  ForwardScope scope;
  keep(real->ncclReduceScatter(in, out, recvCount, dtype, op, h_.rail, h_.railStream));
}

void RailGroup::allGather(const char* in, char* out, size_t bytes) {
  if (!open_) return;
  const RealNccl* real = realNccl();
  if (!real->ncclAllGather) return keep(missingRealFunction("ncclAllGather"));
  ForwardScope scope;
  keep(real->ncclAllGather(in, out, bytes, ncclUint8, h_.rail, h_.railStream));
}

void RailGroup::exchange(int railRank, const char* send, char* recv, size_t bytes) {
  if (!open_) return;
  const RealNccl* real = realNccl();
  if (!real->ncclSend || !real->ncclRecv) return keep(missingRealFunction("ncclSend/ncclRecv"));
  ForwardScope scope;
  keep(real->ncclSend(send, bytes, ncclUint8, railRank, h_.rail, h_.railStream));
  keep(real->ncclRecv(recv, bytes, ncclUint8, railRank, h_.rail, h_.railStream));
}

ncclResult_t RailGroup::end() {
  if (!open_) return result_;
  open_ = false;
  const RealNccl* real = realNccl();
  {
    ForwardScope scope;
    keep(real->ncclGroupEnd());
  }
  // Rails are made blocking, but NCCL_COMM_BLOCKING=0 overrides that: then NCCL enqueues the
  // group from a thread of its own, and the event recorded after this step must wait until it has.
  while (inProgress_ && result_ == ncclSuccess) {
    ncclResult_t state = ncclSuccess;
    {
      ForwardScope scope;
      keep(real->ncclCommGetAsyncError(h_.rail, &state));
    }
    if (state != ncclInProgress) {
      inProgress_ = false;
      keep(state);
    } else {
      std::this_thread::yield();
    }
  }
  return result_;
}

}  // namespace flashccl
