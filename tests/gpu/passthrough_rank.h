// One rank of the pass-through check: its communicator (made through flashccl, as an application
// makes it), and every case run twice on it, through flashccl and through the real NCCL, from the
// same inputs, with the two outputs compared bitwise.
#pragma once

#include <vector>

#include <nccl.h>

#include "passthrough_cases.h"
#include "passthrough_channel.h"

namespace flashccl_gpu_test::passthrough {

struct RankJob {
  int rank = 0;
  int nranks = 0;
  ncclUniqueId id{};
  const std::vector<Case>* cases = nullptr;
  bool graph = false;
  double caseTimeoutS = 30;  // per wait for a call or a copy
  int device = 0;
};

// Uses GPU `rank`. Reports every case (and rank 0 the communicator's flashccl state) to
// `channel`. Returns 0 when every case ran to a comparison, 1 when something failed: then it has
// reported the failure, aborted the communicator (so peers stuck in a collective with this rank
// fail instead of hanging) and run no further case.
int runRank(const RankJob& job, ReportChannel& channel);

}  // namespace flashccl_gpu_test::passthrough
