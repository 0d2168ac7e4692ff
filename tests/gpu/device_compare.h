// Compares two device buffers on the GPU, so stress tests can check every call's output against
// NCCL's without copying each one back: the number of differing elements is added to a device
// counter that is read once at the end.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>
#include <nccl.h>

namespace flashccl_gpu_test {

// *mismatches += elements where `a` and `b` differ: bitwise when `tolerance` is 0, else by more
// than tolerance * max(1, |b|) (float32 only). Enqueued on `stream`.
cudaError_t countMismatches(const void* a, const void* b, size_t count, ncclDataType_t dtype, double tolerance,
                            unsigned long long* mismatches, cudaStream_t stream);

}  // namespace flashccl_gpu_test
