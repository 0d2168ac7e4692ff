#include "perf_kernels.h"

#include <algorithm>

namespace flashccl {
namespace perf {
namespace {

constexpr int kThreads = 256;
constexpr size_t kMaxBlocks = 4096;  // grid-stride beyond this: plenty to saturate an H200

int blocksFor(size_t count) {
  const size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<size_t>(1, std::min(blocks, kMaxBlocks)));
}

template <typename Word>
__global__ void fillInputKernel(Word* data, size_t count, DataType type, ReduceOp op,
                                uint64_t seed, int rank) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    data[i] = static_cast<Word>(inputBits(seed, rank, i, type, op));
}

template <typename Word>
__global__ void compareAndHashKernel(const Word* expected, const Word* actual, size_t count,
                                     DataType type, ComparePolicy policy,
                                     DeviceCheckResult* result) {
  unsigned long long mismatches = 0, firstIndex = ~0ull, hash = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const uint64_t e = expected[i], a = actual[i];
    if (!elementsMatch(type, e, a, policy)) {
      ++mismatches;
      firstIndex = min(firstIndex, static_cast<unsigned long long>(i));
    }
    hash += elementHashTerm(i, a);
  }
  // Warp reduction, then one atomic per warp: sums and min are order-free, so the totals do not
  // depend on scheduling.
  for (int offset = 16; offset > 0; offset /= 2) {
    mismatches += __shfl_down_sync(0xFFFFFFFFu, mismatches, offset);
    hash += __shfl_down_sync(0xFFFFFFFFu, hash, offset);
    firstIndex = min(firstIndex, __shfl_down_sync(0xFFFFFFFFu, firstIndex, offset));
  }
  if ((threadIdx.x & 31) == 0) {
    if (mismatches) {
      atomicAdd(&result->mismatches, mismatches);
      atomicMin(&result->firstIndex, firstIndex);
    }
    atomicAdd(&result->hash, hash);
  }
}

__global__ void resetResultKernel(DeviceCheckResult* result) {
  result->mismatches = 0ull;
  result->firstIndex = ~0ull;
  result->hash = 0ull;
}

template <typename Word>
cudaError_t fillAs(void* data, size_t count, DataType type, ReduceOp op, uint64_t seed, int rank,
                   cudaStream_t stream) {
  fillInputKernel<Word><<<blocksFor(count), kThreads, 0, stream>>>(static_cast<Word*>(data), count,
                                                                   type, op, seed, rank);
  return cudaGetLastError();
}

template <typename Word>
cudaError_t compareAs(const void* expected, const void* actual, size_t count, DataType type,
                      ComparePolicy policy, DeviceCheckResult* result, cudaStream_t stream) {
  compareAndHashKernel<Word><<<blocksFor(count), kThreads, 0, stream>>>(
      static_cast<const Word*>(expected), static_cast<const Word*>(actual), count, type, policy,
      result);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launchFillInput(void* data, size_t count, DataType type, ReduceOp op, uint64_t seed,
                            int rank, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  switch (dataTypeSize(type)) {
    case 1: return fillAs<uint8_t>(data, count, type, op, seed, rank, stream);
    case 2: return fillAs<uint16_t>(data, count, type, op, seed, rank, stream);
    case 4: return fillAs<uint32_t>(data, count, type, op, seed, rank, stream);
    default: return fillAs<unsigned long long>(data, count, type, op, seed, rank, stream);
  }
}

cudaError_t launchCompareAndHash(const void* expected, const void* actual, size_t count,
                                 DataType type, ComparePolicy policy, DeviceCheckResult* result,
                                 cudaStream_t stream) {
  resetResultKernel<<<1, 1, 0, stream>>>(result);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess || count == 0) return err;
  switch (dataTypeSize(type)) {
    case 1: return compareAs<uint8_t>(expected, actual, count, type, policy, result, stream);
    case 2: return compareAs<uint16_t>(expected, actual, count, type, policy, result, stream);
    case 4: return compareAs<uint32_t>(expected, actual, count, type, policy, result, stream);
    default:
      return compareAs<unsigned long long>(expected, actual, count, type, policy, result, stream);
  }
}

}  // namespace perf
}  // namespace flashccl
