// The GPU executor of MSCCL programs: one kernel that runs one rank's ExecImage over our peer
// memory. One CUDA block per thread block of the program; dependencies between blocks through
// device flags; the three protocols:
//   - LL:    8 data bytes + 4-byte flags in one 16-byte store, into the LL packet slots;
//   - LL128: 120 data bytes + an 8-byte flag per 128-byte line written by 8 threads of a warp at
//            once, into the LL128 line slots;
//   - Simple: bulk 16-byte stores into the chunk slots of the connection's lane, with
//            release/acquire ready and ack counters (the chunk pipeline of the built-ins).
// LL and LL128 give every connection its own stretch of packet space per launch (exec_image.h),
// so nothing waits for space; Simple loops over tiles of the chunks and recycles slots.
// Flags carry the launch sequence, so CUDA-graph replays need no host work.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "algo/reduce_spec.h"
#include "msccl/exec_image.h"
#include "transport/p2p/device_comm.h"

namespace flashccl::msccl {

struct ExecLaunch {
  const ExecImageHeader* image;  // device copy of this rank's image
  int threadBlocks;              // grid size: the image's thread block count
  const char* input;
  char* output;
  char* scratch;
  ExecCallShape shape;
  ncclDataType_t dtype;
  ReduceSpec reduce;  // kind is sum, prod, min or max
};

// The reduction kinds the executor instantiates (the ops MSCCL runs: no avg, no PreMulSum).
bool executorRunsReduction(dev::RedKind kind);

// Enqueues the kernel on `stream`; cudaErrorInvalidValue when the type or reduction has no
// instantiation.
cudaError_t launchExecutor(const DeviceComm& comm, const ExecLaunch& launch, cudaStream_t stream);

}  // namespace flashccl::msccl
