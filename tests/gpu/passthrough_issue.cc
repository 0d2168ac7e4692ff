#include "passthrough_issue.h"

#include "test_inputs.h"

namespace flashccl_gpu_test::passthrough {
namespace {

// Collects the first failure of a sequence of calls; later calls still run, so a group that was
// started is always ended (NCCL's group state is per thread and would leak into the next case).
class CallSequence {
 public:
  void add(ncclResult_t result, const char* call) {
    if (result != ncclSuccess && first_.result == ncclSuccess) first_ = IssueResult{result, call};
  }
  IssueResult first() const { return first_; }

 private:
  IssueResult first_;
};

// The ring exchange: every rank sends its `count` elements to the next rank and receives the
// previous rank's into `out`. With 2 ranks next and previous are the same peer.
void addRingExchange(const NcclApi& api, CallSequence* calls, const Case& c, const RankBuffers& b,
                     void* out, ncclComm_t comm, cudaStream_t stream) {
  const int next = (b.rank + 1) % b.nranks;
  const int previous = (b.rank + b.nranks - 1) % b.nranks;
  calls->add(api.send(b.input, c.count, c.dtype, next, comm, stream), "ncclSend");
  calls->add(api.recv(out, c.count, c.dtype, previous, comm, stream), "ncclRecv");
}

// Several collectives of different kinds in one group, each writing its own slice of the work
// buffer (layout in outputCount): NCCL fuses them into one launch, flashccl sees them grouped.
void addBatch(const NcclApi& api, CallSequence* calls, const Case& c, const RankBuffers& b,
              ncclComm_t comm, cudaStream_t stream) {
  const size_t bytes = c.count * typeSize(c.dtype);
  const size_t n = static_cast<size_t>(b.nranks);
  char* out = b.work;
  calls->add(api.allReduce(b.input, out, c.count, c.dtype, c.op, comm, stream), "ncclAllReduce");
  out += bytes;
  calls->add(api.reduce(b.input, out, c.count, c.dtype, c.op, b.nranks - 1, comm, stream), "ncclReduce");
  out += bytes;
  calls->add(api.broadcast(b.input, out, c.count, c.dtype, 0, comm, stream), "ncclBroadcast");
  out += bytes;
  calls->add(api.allGather(b.input, out, c.count, c.dtype, comm, stream), "ncclAllGather");
  out += n * bytes;
  calls->add(api.reduceScatter(b.input, out, c.count, c.dtype, c.op, comm, stream), "ncclReduceScatter");
  out += bytes;
  calls->add(api.alltoAll(b.input, out, c.count, c.dtype, comm, stream), "ncclAlltoAll");
  out += n * bytes;
  addRingExchange(api, calls, c, b, out, comm, stream);
}

}  // namespace

IssueResult issueCase(const NcclApi& api, const Case& c, const RankBuffers& b, ncclComm_t comm,
                      cudaStream_t stream) {
  const size_t size = typeSize(c.dtype);
  const void* send = c.inPlace ? b.work + inPlaceInputOffset(c, b.rank) * size
                               : static_cast<const void*>(b.input);
  void* recv = b.work + (c.inPlace ? inPlaceOutputOffset(c, b.rank) * size : 0);
  CallSequence calls;
  switch (c.collective) {
    case Collective::kAllReduce:
      calls.add(api.allReduce(send, recv, c.count, c.dtype, c.op, comm, stream), "ncclAllReduce");
      break;
    case Collective::kBroadcast:
      calls.add(api.broadcast(send, recv, c.count, c.dtype, c.root, comm, stream), "ncclBroadcast");
      break;
    case Collective::kReduce:
      calls.add(api.reduce(send, recv, c.count, c.dtype, c.op, c.root, comm, stream), "ncclReduce");
      break;
    case Collective::kAllGather:
      calls.add(api.allGather(send, recv, c.count, c.dtype, comm, stream), "ncclAllGather");
      break;
    case Collective::kReduceScatter:
      calls.add(api.reduceScatter(send, recv, c.count, c.dtype, c.op, comm, stream), "ncclReduceScatter");
      break;
    case Collective::kAlltoAll:
      calls.add(api.alltoAll(send, recv, c.count, c.dtype, comm, stream), "ncclAlltoAll");
      break;
    case Collective::kGather:
      calls.add(api.gather(send, recv, c.count, c.dtype, c.root, comm, stream), "ncclGather");
      break;
    case Collective::kScatter:
      calls.add(api.scatter(send, recv, c.count, c.dtype, c.root, comm, stream), "ncclScatter");
      break;
    case Collective::kSendRecv:
      calls.add(api.groupStart(), "ncclGroupStart");
      addRingExchange(api, &calls, c, b, b.work, comm, stream);
      calls.add(api.groupEnd(), "ncclGroupEnd");
      break;
    case Collective::kGroupedBatch:
      calls.add(api.groupStart(), "ncclGroupStart");
      addBatch(api, &calls, c, b, comm, stream);
      calls.add(api.groupEnd(), "ncclGroupEnd");
      break;
  }
  return calls.first();
}

}  // namespace flashccl_gpu_test::passthrough
