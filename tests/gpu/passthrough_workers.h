// What the supervisor's child processes run. Each reports through its channel and returns its exit
// status. All CUDA and NCCL work happens here, in children, so the supervisor can fork freely and
// survive any of them hanging or crashing.
#pragma once

#include <vector>

#include "passthrough_cases.h"
#include "passthrough_channel.h"
#include "passthrough_unique_id_pipes.h"

namespace flashccl_gpu_test::passthrough {

struct ModeJob {
  int nranks = 0;
  const std::vector<Case>* cases = nullptr;
  bool graph = false;
  double caseTimeoutS = 30;
  bool oneGpu = false;  // every rank on GPU 0, each process its own NCCL_HOSTID
};

// Facts for the header: devices, the real NCCL's version and path, flashccl's version.
int probeWorker(ReportChannel& channel);

// Threads mode: one process, one thread per rank, every thread calling ncclCommInitRank with the
// id this process made.
int threadsWorker(const ModeJob& job, ReportChannel& channel);

// Procs mode: the process of rank `rank`, which gets its id from rank 0 through `ids`.
int rankProcessWorker(const ModeJob& job, int rank, UniqueIdPipes& ids, ReportChannel& channel);

}  // namespace flashccl_gpu_test::passthrough
