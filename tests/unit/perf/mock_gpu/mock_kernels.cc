// Host versions of perf_kernels.cu's launchers for the mock: the same element rules, run on the
// stream's worker thread.
#include "perf_kernels.h"

#include "compare.h"
#include "mock_gpu.h"

namespace flashccl {
namespace perf {

cudaError_t launchFillInput(void* data, size_t count, DataType type, ReduceOp op, uint64_t seed,
                            int rank, cudaStream_t stream) {
  mockgpu::submit(stream, [=] {
    const int bytes = static_cast<int>(dataTypeSize(type));
    for (size_t i = 0; i < count; ++i)
      storeElementBits(data, i, bytes, inputBits(seed, rank, i, type, op));
  });
  return cudaSuccess;
}

cudaError_t launchCompareAndHash(const void* expected, const void* actual, size_t count,
                                 DataType type, ComparePolicy policy, DeviceCheckResult* result,
                                 cudaStream_t stream) {
  mockgpu::submit(stream, [=] {
    const CompareOutcome outcome = compareBuffers(type, policy, expected, actual, count);
    result->mismatches = outcome.mismatches;
    result->firstIndex = outcome.firstIndex;
    result->hash = hashBuffer(type, actual, count);
  });
  return cudaSuccess;
}

}  // namespace perf
}  // namespace flashccl
