#include "gpu_test_env.h"

#include <cstdio>

namespace flashccl_gpu_test {

Ranks& Ranks::get() {
  static Ranks ranks;
  return ranks;
}

Ranks::Ranks() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2) {
    std::fprintf(stderr, "flashccl GPU tests need >= 2 GPUs; found %d: skipping\n", devices);
    return;
  }
  n = devices > 8 ? 8 : devices;
  comms.resize(n);
  if (ncclCommInitAll(comms.data(), n, nullptr) != ncclSuccess) {
    std::fprintf(stderr, "ncclCommInitAll failed\n");
    n = 0;
    return;
  }
  real.allReduce = reinterpret_cast<AllReduceFn>(flashcclRealFunction("ncclAllReduce"));
  real.allGather = reinterpret_cast<AllGatherFn>(flashcclRealFunction("ncclAllGather"));
  real.reduceScatter = reinterpret_cast<ReduceScatterFn>(flashcclRealFunction("ncclReduceScatter"));
  bytes = (64u << 20) * static_cast<size_t>(n) + 4096;  // the largest case: 64 MB per rank shard
  streams.resize(n);
  input.resize(n);
  ours.resize(n);
  theirs.resize(n);
  for (int i = 0; i < n; ++i) {
    cudaSetDevice(i);
    cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
    cudaMalloc(&input[i], bytes);
    cudaMalloc(&ours[i], bytes);
    cudaMalloc(&theirs[i], bytes);
  }
  for (int i = 0; i < n; ++i) {
    const char* reason = nullptr;
    const int state = flashcclCommState(comms[i], &reason);
    std::fprintf(stderr, "rank %d: flashccl state %d%s%s\n", i, state, reason ? ": " : "", reason ? reason : "");
  }
}

void syncAll(Ranks& r) {
  for (int i = 0; i < r.n; ++i) {
    cudaSetDevice(i);
    GPU_CHECK(cudaStreamSynchronize(r.streams[i]));
  }
}

}  // namespace flashccl_gpu_test
