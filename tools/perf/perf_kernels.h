// Device side of the correctness check: fill a rank's inputs from the seeded generator, and compare
// flashccl's output with NCCL's while hashing it, all on the GPU (a 4 GiB buffer would take seconds
// to copy and compare on the host). The element rules are element_codec.h's, shared with the CPU
// tests. Launchers return the launch's cudaError_t; the caller checks it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "element_codec.h"
#include "perf_types.h"

namespace flashccl {
namespace perf {

// Written by launchCompareAndHash; lives in device memory.
struct DeviceCheckResult {
  unsigned long long mismatches;
  unsigned long long firstIndex;  // ~0ull when there is no mismatch
  unsigned long long hash;        // hashBuffer() of `actual`
};

// data[i] = inputBits(seed, rank, i, type, op) for i < count.
cudaError_t launchFillInput(void* data, size_t count, DataType type, ReduceOp op, uint64_t seed,
                            int rank, cudaStream_t stream);

// Resets *result, then counts elements where elementsMatch(expected, actual) fails, records the first
// one, and hashes `actual`.
cudaError_t launchCompareAndHash(const void* expected, const void* actual, size_t count,
                                 DataType type, ComparePolicy policy, DeviceCheckResult* result,
                                 cudaStream_t stream);

}  // namespace perf
}  // namespace flashccl
