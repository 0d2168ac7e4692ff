// Issuing one case's NCCL calls for one rank through either NcclApi: the single collective, or
// for send/recv and the batch, one ncclGroupStart/End. Buffers follow NCCL's in-place rules.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include "passthrough_cases.h"
#include "passthrough_nccl_api.h"

namespace flashccl_gpu_test::passthrough {

struct IssueResult {
  ncclResult_t result = ncclSuccess;
  const char* call = "";  // the nccl* call that failed, for the message
};

struct RankBuffers {
  int rank = 0;
  int nranks = 0;
  const char* input = nullptr;  // inputCount elements: what out-of-place calls send
  char* work = nullptr;         // workCount elements: the output, and the input when in place
};

IssueResult issueCase(const NcclApi& api, const Case& c, const RankBuffers& buffers,
                      ncclComm_t comm, cudaStream_t stream);

}  // namespace flashccl_gpu_test::passthrough
