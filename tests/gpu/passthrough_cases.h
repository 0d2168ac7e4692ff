// The cases of the pass-through check: every NCCL collective and send/recv, over several dtypes,
// counts, ops, roots and placements. The supervisor (for names and the record) and every rank (to
// run them) build the same list, so a case is known everywhere by its index.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nccl.h>

namespace flashccl_gpu_test::passthrough {

enum class Collective {
  kAllReduce,
  kBroadcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kAlltoAll,
  kGather,
  kScatter,
  kSendRecv,      // a ring exchange: send to rank+1, receive from rank-1, in one group
  kGroupedBatch,  // several collectives and the ring exchange in one group
};

const char* collectiveName(Collective c);

struct Case {
  Collective collective;
  ncclDataType_t dtype;
  ncclRedOp_t op;  // used by the reducing collectives and the batch
  int root;        // used by the rooted collectives; -1 elsewhere
  size_t count;    // the call's count argument (AllGather sendcount, ReduceScatter recvcount, ...)
  bool inPlace;
};

// Element counts of each rank's buffers for `c` on `nranks` ranks. In place runs in the work
// buffer alone, so it spans the larger of input and output.
size_t inputCount(const Case& c, int nranks);
size_t outputCount(const Case& c, int nranks);
size_t workCount(const Case& c, int nranks);

// Where, in elements, an in-place call's input sits in the work buffer: NCCL's in-place rules put
// AllGather's and Gather's send buffer at the rank's own slot of the output, everything else at 0.
size_t inPlaceInputOffset(const Case& c, int rank);
// Where an in-place call's output starts: ReduceScatter and Scatter receive into the rank's slot.
size_t inPlaceOutputOffset(const Case& c, int rank);

// "AllReduce float sum count=1001 out-of-place", "Gather bf16 root=1 count=1 in-place".
std::string describe(const Case& c);

// Collective-major, then dtype, count, op, root, placement. `counts` as in the calls.
std::vector<Case> buildCases(int nranks, const std::vector<size_t>& counts);

}  // namespace flashccl_gpu_test::passthrough
