// The AllReduce host-overhead benchmarks (float sum, out of place), registered size by size so
// that the numbers compared with each other are taken close together in time:
//   BM_BareLaunch/<bytes>                   rank 0: the captured kernel(s), launched the way
//                                           flashccl launches (driver_launch.h), nothing else
//   BM_BareRuntimeLaunch/<bytes>            rank 0: the same through cudaLaunchKernel, as an
//                                           application launches its own kernels
//   BM_InterceptedAllReduce/<bytes>         rank 0: ncclAllReduce through flashccl, same kernel
//   BM_SideBySide/<bytes>                   rank 0: bare, intercepted and runtime launches in
//                                           rotating batches; counters bare_us, intercepted_us,
//                                           runtime_us, overhead_us (the goal's number) and
//                                           vs_runtime_us
//   BM_InterceptedAllReduceGrouped/<bytes>  grouped pairs through flashccl          } context:
//   BM_PassThroughAllReduceGrouped/<bytes>  grouped pairs on comms flashccl forwards } NCCL's own
//   BM_RealNcclAllReduceGrouped/<bytes>     grouped pairs through the real NCCL      } host cost
// Times are host time per call in microseconds (batch_timing.h says how they are taken).
// With virtual ranks (one GPU, two_gpus.h) only the first four run; the grouped ones need real
// NCCL communicators and are skipped with a message.
#pragma once

#include <cstddef>
#include <vector>

namespace flashccl_bench {

// Message sizes in bytes: the one-shot kernel's smallest and mid-size messages, and the two-shot
// kernel's (topologies/hopper-2gpu-nvlink.xml). Host work should not depend on size; the
// kernel, grid and arguments do.
const std::vector<size_t>& benchmarkSizes();

void registerAllReduceBenchmarks();

}  // namespace flashccl_bench
