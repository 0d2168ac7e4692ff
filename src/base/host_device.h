// Marks small functions that host code and our kernels both call (layout arithmetic, step
// predicates): __host__ __device__ under nvcc, plain inline-able functions elsewhere.
#pragma once

#ifdef __CUDACC__
#define FLASHCCL_HOST_DEVICE __host__ __device__
#else
#define FLASHCCL_HOST_DEVICE
#endif
