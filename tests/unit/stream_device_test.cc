// StreamDeviceCheck: which streams dispatch lets our kernels run on, and how often it asks CUDA.
#include <cstdint>

#include <gtest/gtest.h>

#include "runtime/stream_device.h"

namespace flashccl {
namespace {

// A fake stream -> context table: streams 0x100 + d belong to context 0x1000 + d (one per
// device), 0x999 cannot be told.
int queries = 0;
void* contextOfDevice(int device) { return reinterpret_cast<void*>(uintptr_t{0x1000} + device); }
void* fakeContextOf(cudaStream_t stream) {
  ++queries;
  const auto handle = reinterpret_cast<uintptr_t>(stream);
  if (handle == 0x999) return nullptr;
  return contextOfDevice(static_cast<int>(handle - 0x100));
}
cudaStream_t streamOf(int device) { return reinterpret_cast<cudaStream_t>(uintptr_t{0x100} + device); }

TEST(StreamDeviceCheck, StreamOfTheCommunicatorsDeviceRuns) {
  StreamDeviceCheck check(fakeContextOf);
  EXPECT_TRUE(check.onCommDevice(streamOf(1), contextOfDevice(1)));
}

TEST(StreamDeviceCheck, StreamOfAnotherDeviceIsRefused) {
  StreamDeviceCheck check(fakeContextOf);
  EXPECT_FALSE(check.onCommDevice(streamOf(3), contextOfDevice(1)));
  // The same stream with a communicator of its own device is fine (the answer is per stream).
  EXPECT_TRUE(check.onCommDevice(streamOf(3), contextOfDevice(3)));
}

TEST(StreamDeviceCheck, DefaultStreamsAreTheCurrentContextsAndNeverQueried) {
  StreamDeviceCheck check(fakeContextOf);
  queries = 0;
  EXPECT_TRUE(check.onCommDevice(nullptr, contextOfDevice(2)));
  EXPECT_TRUE(check.onCommDevice(cudaStreamLegacy, contextOfDevice(2)));
  EXPECT_TRUE(check.onCommDevice(cudaStreamPerThread, contextOfDevice(2)));
  EXPECT_EQ(queries, 0);
}

TEST(StreamDeviceCheck, UnknownContextsGetTheBenefitOfTheDoubt) {
  StreamDeviceCheck check(fakeContextOf);
  EXPECT_TRUE(check.onCommDevice(reinterpret_cast<cudaStream_t>(uintptr_t{0x999}), contextOfDevice(0)));
  EXPECT_TRUE(check.onCommDevice(streamOf(5), nullptr));  // the communicator's context unknown
}

TEST(StreamDeviceCheck, AsksOncePerStreamChange) {
  StreamDeviceCheck check(fakeContextOf);
  queries = 0;
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(check.onCommDevice(streamOf(0), contextOfDevice(0)));
  EXPECT_EQ(queries, 1);
  EXPECT_FALSE(check.onCommDevice(streamOf(1), contextOfDevice(0)));
  EXPECT_TRUE(check.onCommDevice(streamOf(0), contextOfDevice(0)));
  EXPECT_EQ(queries, 3);
}

TEST(StreamDeviceCheck, WithoutAGpuTheDriverQueryAnswersUnknown) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) GTEST_SKIP() << "has a GPU";
  // Without a driver the runtime's own failure to start is sticky; the query must not add to it.
  const cudaError_t before = cudaGetLastError();
  EXPECT_EQ(StreamDeviceCheck::driverContextOf(reinterpret_cast<cudaStream_t>(uintptr_t{0x4242})), nullptr);
  EXPECT_EQ(cudaGetLastError(), before);
}

}  // namespace
}  // namespace flashccl
