// What the algorithms across nodes use besides their node's peer memory: where this rank sits,
// and what set-up made for the steps between nodes. The runtime owns it (runtime/node_rails.h);
// algorithms only read it. A described-only hierarchy (`flashccl plan`) has the layout and sizes
// but no communicator, stream or memory: supports() answers from it, launch() never runs.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "transport/p2p/device_comm.h"

namespace flashccl {

// Where this rank sits: the same on every rank but for its own place.
struct NodeLayout {
  int nnodes = 1;
  int localRanks = 0;      // ranks on every node (the node's peer memory holds them)
  int node = 0;            // this rank's node, numbered by lowest communicator rank
  int localRank = 0;       // this rank's index on its node, which is also its rail
  int worldRank = 0;       // this rank in the communicator
  bool nodeMajor = false;  // communicator rank == node * localRanks + localRank, for every rank
};

struct Hierarchy : NodeLayout {
  // The real NCCL's communicator of this rank's rail: one rank per node, rail rank == node.
  ncclComm_t rail = nullptr;
  // Where the rail's NCCL calls run, beside the call's stream (rail_steps.h).
  cudaStream_t railStream = nullptr;
  cudaEvent_t forked = nullptr;       // the call's stream so far, for the rail stream to wait on
  cudaEvent_t railDone[2] = {};       // after inter-node step k: railDone[k % 2]
  char* staging = nullptr;            // device memory for inter-node steps over contiguous blocks
  size_t stagingBytes = 0;
  // Device memory: [0] this rank's call record, [1 + node] every rail rank's, gathered.
  CallRecord* records = nullptr;
};

}  // namespace flashccl
