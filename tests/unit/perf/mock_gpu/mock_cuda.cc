// The CUDA runtime part of the mock (see mock_gpu.h).
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "mock_gpu.h"

namespace {

std::atomic<int> gDeviceCount{2};
std::atomic<long long> gGraphLaunches{0};
thread_local int tCurrentDevice = 0;

struct MockGraph {
  std::vector<std::function<void()>> work;
};

struct MockStream {
  int device = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::function<void()>> queue;
  bool running = false;  // an item is executing
  bool stopping = false;
  MockGraph* capture = nullptr;
  std::thread worker;

  MockStream() : worker([this] { loop(); }) {}
  ~MockStream() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    worker.join();
  }
  void loop() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) return;
      std::function<void()> work = std::move(queue.front());
      queue.pop_front();
      running = true;
      lock.unlock();
      work();
      lock.lock();
      running = false;
      changed.notify_all();
    }
  }
  void enqueue(std::function<void()> work) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue.push_back(std::move(work));
    }
    changed.notify_all();
  }
  bool idle() {
    std::lock_guard<std::mutex> lock(mutex);
    return queue.empty() && !running;
  }
  void waitIdle() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return queue.empty() && !running; });
  }
};

struct MockEvent {
  std::atomic<double> seconds{0.0};
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

MockStream* asStream(cudaStream_t stream) {
  if (!stream) {
    std::fprintf(stderr, "mock CUDA: the tool used the legacy default stream\n");
    std::abort();
  }
  return reinterpret_cast<MockStream*>(stream);
}

}  // namespace

namespace mockgpu {

void setDeviceCount(int count) { gDeviceCount = count; }
long long graphLaunches() { return gGraphLaunches; }

void submit(cudaStream_t stream, std::function<void()> work) {
  MockStream* s = asStream(stream);
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (s->capture) {
      s->capture->work.push_back(std::move(work));
      return;
    }
  }
  s->enqueue(std::move(work));
}

}  // namespace mockgpu

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  *count = gDeviceCount;
  return gDeviceCount > 0 ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= gDeviceCount) return cudaErrorInvalidDevice;
  tCurrentDevice = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = tCurrentDevice;
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  MockStream* s = new MockStream;
  s->device = tCurrentDevice;
  *stream = reinterpret_cast<cudaStream_t>(s);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  MockStream* s = asStream(stream);
  s->waitIdle();
  delete s;
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return asStream(stream)->idle() ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  asStream(stream)->waitIdle();
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = reinterpret_cast<cudaEvent_t>(new MockEvent);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete reinterpret_cast<MockEvent*>(event);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  MockEvent* e = reinterpret_cast<MockEvent*>(event);
  mockgpu::submit(stream, [e] { e->seconds = now(); });
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  const double a = reinterpret_cast<MockEvent*>(start)->seconds;
  const double b = reinterpret_cast<MockEvent*>(end)->seconds;
  if (a == 0.0 || b == 0.0) return cudaErrorNotReady;
  *ms = static_cast<float>((b - a) * 1e3);
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** pointer, size_t size) {
  if (size > (size_t{1} << 34)) return cudaErrorMemoryAllocation;
  *pointer = std::aligned_alloc(256, (size + 255) / 256 * 256);
  return *pointer ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void* pointer) {
  std::free(pointer);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* pointer, int value, size_t count, cudaStream_t stream) {
  mockgpu::submit(stream, [=] { std::memset(pointer, value, count); });
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (kind == cudaMemcpyHostToDevice) {
    // Pageable source: CUDA stages it before returning, so the caller may reuse it at once.
    auto staged = std::make_shared<std::vector<unsigned char>>(
        static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + count);
    mockgpu::submit(stream, [=] { std::memcpy(dst, staged->data(), count); });
    return cudaSuccess;
  }
  mockgpu::submit(stream, [=] { std::memcpy(dst, src, count); });
  // To pageable host memory: returns only when the copy is done, as CUDA's does.
  if (kind == cudaMemcpyDeviceToHost) asStream(stream)->waitIdle();
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* properties, int device) {
  if (device < 0 || device >= gDeviceCount) return cudaErrorInvalidDevice;
  std::memset(properties, 0, sizeof(*properties));
  std::snprintf(properties->name, sizeof(properties->name), "Mock GPU");
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char* busId, int length, int device) {
  std::snprintf(busId, static_cast<size_t>(length), "0000:00:%02x.0", device + 6);
  return cudaSuccess;
}

const char* cudaGetErrorString(cudaError_t) { return "mock CUDA error"; }
const char* cudaGetErrorName(cudaError_t error) {
  return error == cudaErrorNoDevice ? "cudaErrorNoDevice" : "cudaErrorMock";
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode) {
  MockStream* s = asStream(stream);
  std::lock_guard<std::mutex> lock(s->mutex);
  if (s->capture) return cudaErrorIllegalState;
  s->capture = new MockGraph;
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  MockStream* s = asStream(stream);
  std::lock_guard<std::mutex> lock(s->mutex);
  if (!s->capture) return cudaErrorIllegalState;
  *graph = reinterpret_cast<cudaGraph_t>(s->capture);
  s->capture = nullptr;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  *exec = reinterpret_cast<cudaGraphExec_t>(new MockGraph(*reinterpret_cast<MockGraph*>(graph)));
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete reinterpret_cast<MockGraph*>(graph);
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete reinterpret_cast<MockGraph*>(exec);
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  ++gGraphLaunches;
  for (const std::function<void()>& work : reinterpret_cast<MockGraph*>(exec)->work)
    mockgpu::submit(stream, work);
  return cudaSuccess;
}

}  // extern "C"
