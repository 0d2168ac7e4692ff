#include "device_compare.h"

#include "test_inputs.h"

namespace flashccl_gpu_test {

namespace {

__global__ void countBytesDiffering(const unsigned char* a, const unsigned char* b, size_t elements, int elementSize,
                                    unsigned long long* mismatches) {
  unsigned long long found = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += gridDim.x * blockDim.x) {
    for (int k = 0; k < elementSize; ++k) {
      if (a[i * elementSize + k] != b[i * elementSize + k]) {
        ++found;
        break;
      }
    }
  }
  if (found) atomicAdd(mismatches, found);
}

__global__ void countFloatsApart(const float* a, const float* b, size_t count, float tolerance,
                                 unsigned long long* mismatches) {
  unsigned long long found = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    if (fabsf(a[i] - b[i]) > tolerance * fmaxf(1.0f, fabsf(b[i])) || (isnan(a[i]) != isnan(b[i]))) ++found;
  }
  if (found) atomicAdd(mismatches, found);
}

}  // namespace

cudaError_t countMismatches(const void* a, const void* b, size_t count, ncclDataType_t dtype, double tolerance,
                            unsigned long long* mismatches, cudaStream_t stream) {
  const int blocks = static_cast<int>(count / 256 + 1 < 1024 ? count / 256 + 1 : 1024);
  if (tolerance > 0 && dtype == ncclFloat32) {
    countFloatsApart<<<blocks, 256, 0, stream>>>(static_cast<const float*>(a), static_cast<const float*>(b), count,
                                                 static_cast<float>(tolerance), mismatches);
  } else {
    countBytesDiffering<<<blocks, 256, 0, stream>>>(static_cast<const unsigned char*>(a),
                                                    static_cast<const unsigned char*>(b), count,
                                                    static_cast<int>(typeSize(dtype)), mismatches);
  }
  return cudaGetLastError();
}

}  // namespace flashccl_gpu_test
