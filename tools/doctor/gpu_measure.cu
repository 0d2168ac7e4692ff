#include "gpu_measure.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "algo/device/memory_ops.cuh"
#include "topo/topology.h"

namespace flashccl {
namespace doctor {

namespace {

// Ping-pong kernels give up after this long without an answer, so a broken peer path reports a
// timeout instead of hanging doctor.
constexpr uint64_t kSpinLimitNanos = 2ull * 1000 * 1000 * 1000;
constexpr int kThreadsPerBlock = 512;

std::string cudaText(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

// Records the first failing call in *error; true when `result` is cudaSuccess.
bool ok(cudaError_t result, const char* what, std::string* error) {
  if (result == cudaSuccess) return true;
  if (error->empty()) *error = std::string(what) + ": " + cudaText(result);
  cudaGetLastError();  // do not leave the error for the next call
  return false;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

__device__ __forceinline__ uint64_t globalNanos() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// 16-byte loads and stores, grid-stride: the streaming copy that reaches the memory
// interface's rate (and, with a peer's `dst`, the store rate over NVLink or PCIe).
__global__ void copyKernel(const int4* __restrict__ src, int4* __restrict__ dst, size_t count) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    dst[i] = src[i];
  }
}

// One thread on `from`: stores round i into the peer's flag, waits for the peer's echo in its own.
// result[0] = nanoseconds for rounds 2..n (round 1 warms the path), result[1] = 1 on a timeout.
__global__ void pingKernel(uint64_t* peerFlag, const uint64_t* ownFlag, int rounds, uint64_t* result) {
  uint64_t start = 0;
  for (int i = 1; i <= rounds; ++i) {
    if (i == 2) start = globalNanos();
    dev::storeReleaseSys(peerFlag, uint64_t(i));
    const uint64_t began = globalNanos();
    while (dev::loadAcquireSys(ownFlag) < uint64_t(i)) {
      if (globalNanos() - began > kSpinLimitNanos) {
        result[1] = 1;
        dev::storeReleaseSys(peerFlag, ~0ull);  // let the peer stop too
        return;
      }
    }
  }
  result[0] = globalNanos() - start;
  result[1] = 0;
}

// One thread on `to`: echoes every round it sees.
__global__ void pongKernel(uint64_t* peerFlag, const uint64_t* ownFlag, int rounds) {
  for (int i = 1; i <= rounds; ++i) {
    const uint64_t began = globalNanos();
    uint64_t seen;
    while ((seen = dev::loadAcquireSys(ownFlag)) < uint64_t(i)) {
      if (globalNanos() - began > kSpinLimitNanos) return;
    }
    if (seen == ~0ull) return;  // the pinger gave up
    dev::storeReleaseSys(peerFlag, uint64_t(i));
  }
}

// Times `reps` blocks of `batch` operations enqueued by `enqueue` on `stream`; GB/s of
// `bytesPerOp` each, median over blocks.
template <typename Enqueue>
double timeBandwidth(cudaStream_t stream, size_t bytesPerOp, const MeasureSettings& settings,
                     Enqueue enqueue, std::string* error) {
  cudaEvent_t start = nullptr, stop = nullptr;
  if (!ok(cudaEventCreate(&start), "cudaEventCreate", error) ||
      !ok(cudaEventCreate(&stop), "cudaEventCreate", error)) {
    return 0.0;
  }
  std::vector<double> rates;
  enqueue();  // warm-up
  for (int rep = 0; rep < settings.reps && error->empty(); ++rep) {
    ok(cudaEventRecord(start, stream), "cudaEventRecord", error);
    for (int i = 0; i < settings.batch; ++i) enqueue();
    ok(cudaEventRecord(stop, stream), "cudaEventRecord", error);
    if (!ok(cudaEventSynchronize(stop), "copies", error)) break;
    float ms = 0.0f;
    ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime", error);
    if (ms > 0.0f) rates.push_back(double(bytesPerOp) * settings.batch / (ms * 1e-3) / 1e9);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return error->empty() ? median(rates) : 0.0;
}

int copyBlocks(int device) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return std::max(1, sms) * 2;
}

// Device buffers that are freed on every path out.
struct DeviceBuffer {
  void* ptr = nullptr;
  int device = -1;
  ~DeviceBuffer() {
    if (ptr) {
      cudaSetDevice(device);
      cudaFree(ptr);
    }
  }
};

struct Stream {
  cudaStream_t stream = nullptr;
  int device = -1;
  ~Stream() {
    if (stream) {
      cudaSetDevice(device);
      cudaStreamDestroy(stream);
    }
  }
};

}  // namespace

MeasureSettings quickSettings() { return MeasureSettings(); }

MeasureSettings fullSettings() {
  MeasureSettings settings;
  settings.hostBytes = 256u << 20;
  settings.memoryBytes = 1024u << 20;
  settings.pairBytes = 256u << 20;
  settings.batch = 8;
  settings.reps = 10;
  settings.roundTrips = 10000;
  return settings;
}

int cudaDeviceCount(std::string* why) {
  int count = 0;
  const cudaError_t result = cudaGetDeviceCount(&count);
  if (result != cudaSuccess) {
    cudaGetLastError();
    *why = "cudaGetDeviceCount: " + cudaText(result);
    return 0;
  }
  if (count == 0) *why = "cudaGetDeviceCount found 0 devices";
  return count;
}

std::string cudaBusId(int device) {
  char busId[64] = {0};
  if (cudaDeviceGetPCIBusId(busId, sizeof(busId), device) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return normalizePciBusId(busId);  // the spelling NVML's and sysfs' addresses get
}

int cudaRuntimeVersion() {
  int version = 0;
  cudaRuntimeGetVersion(&version);
  return version;
}

int cudaDriverVersion(std::string* why) {
  int version = 0;
  const cudaError_t result = cudaDriverGetVersion(&version);
  if (result != cudaSuccess) {
    cudaGetLastError();
    *why = cudaText(result);
    return 0;
  }
  if (version == 0) *why = "no CUDA driver installed";
  return version;
}

HostLinkResult measureHostLink(int device, const MeasureSettings& settings,
                               const std::function<void()>& whileBusy) {
  HostLinkResult result;
  std::string& error = result.error;
  if (!ok(cudaSetDevice(device), "cudaSetDevice", &error)) return result;
  void* host = nullptr;
  DeviceBuffer buffer;
  buffer.device = device;
  Stream stream;
  stream.device = device;
  if (!ok(cudaHostAlloc(&host, settings.hostBytes, cudaHostAllocDefault), "cudaHostAlloc", &error)) {
    return result;
  }
  if (ok(cudaMalloc(&buffer.ptr, settings.hostBytes), "cudaMalloc", &error) &&
      ok(cudaStreamCreateWithFlags(&stream.stream, cudaStreamNonBlocking), "cudaStreamCreate", &error)) {
    const size_t bytes = settings.hostBytes;
    auto h2d = [&] { cudaMemcpyAsync(buffer.ptr, host, bytes, cudaMemcpyHostToDevice, stream.stream); };
    auto d2h = [&] { cudaMemcpyAsync(host, buffer.ptr, bytes, cudaMemcpyDeviceToHost, stream.stream); };
    // Keep the link busy for a while (about 16 copies), then sample: an idle GPU's link runs
    // at a lower speed, so only a busy one shows what it trained at.
    for (int i = 0; i < 16; ++i) h2d();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (whileBusy) whileBusy();
    ok(cudaStreamSynchronize(stream.stream), "host to device copies", &error);
    if (error.empty()) result.h2dGBps = timeBandwidth(stream.stream, bytes, settings, h2d, &error);
    if (error.empty()) result.d2hGBps = timeBandwidth(stream.stream, bytes, settings, d2h, &error);
  }
  cudaFreeHost(host);
  return result;
}

MemoryResult measureMemory(int device, const MeasureSettings& settings,
                           const std::function<void()>& whileBusy) {
  MemoryResult result;
  std::string& error = result.error;
  if (!ok(cudaSetDevice(device), "cudaSetDevice", &error)) return result;
  int clockKHz = 0;
  cudaDeviceGetAttribute(&result.busWidthBits, cudaDevAttrGlobalMemoryBusWidth, device);
  cudaDeviceGetAttribute(&clockKHz, cudaDevAttrMemoryClockRate, device);
  cudaGetLastError();
  result.memoryClockMHz = clockKHz / 1000;
  DeviceBuffer src, dst;
  src.device = dst.device = device;
  Stream stream;
  stream.device = device;
  const size_t bytes = settings.memoryBytes & ~size_t(15);
  if (!ok(cudaMalloc(&src.ptr, bytes), "cudaMalloc", &error) ||
      !ok(cudaMalloc(&dst.ptr, bytes), "cudaMalloc", &error) ||
      !ok(cudaMemset(src.ptr, 1, bytes), "cudaMemset", &error) ||
      !ok(cudaStreamCreateWithFlags(&stream.stream, cudaStreamNonBlocking), "cudaStreamCreate", &error) ||
      !ok(cudaDeviceSynchronize(), "cudaMemset", &error)) {  // the non-blocking stream would not wait for it
    return result;
  }
  const int blocks = copyBlocks(device) * 2;
  auto copy = [&] {
    copyKernel<<<blocks, kThreadsPerBlock, 0, stream.stream>>>(
        static_cast<const int4*>(src.ptr), static_cast<int4*>(dst.ptr), bytes / sizeof(int4));
  };
  // Every copied byte is read once and written once.
  result.copyGBps = timeBandwidth(stream.stream, 2 * bytes, settings, copy, &error);
  ok(cudaGetLastError(), "copy kernel", &error);
  if (error.empty() && result.copyGBps > 0 && whileBusy) {
    // About 50 ms of copies, sampled 20 ms in: clocks and throttle reasons of a busy GPU.
    const double kernelSeconds = 2.0 * double(bytes) / (result.copyGBps * 1e9);
    const int kernels = int(std::min(10000.0, std::max(8.0, 0.05 / kernelSeconds)));
    for (int i = 0; i < kernels; ++i) copy();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    whileBusy();
    ok(cudaStreamSynchronize(stream.stream), "copy kernels", &error);
  }
  return result;
}

PairResult measurePair(int from, int to, const MeasureSettings& settings) {
  PairResult result;
  std::string error, peerError;
  int forward = 0, backward = 0;
  cudaDeviceCanAccessPeer(&forward, from, to);
  cudaDeviceCanAccessPeer(&backward, to, from);
  // Enabling peer access twice returns cudaErrorPeerAccessAlreadyEnabled, which is fine. A
  // failure leaves the pair without peer access: the copy engine then stages through the host.
  auto enable = [&](int self, int peer) {
    cudaSetDevice(self);
    const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      cudaGetLastError();
      return true;
    }
    return ok(e, "cudaDeviceEnablePeerAccess", &peerError);
  };
  result.peerAccess = forward && backward && enable(from, to) && enable(to, from);

  const size_t bytes = settings.pairBytes & ~size_t(15);
  DeviceBuffer src, dst;
  src.device = from;
  dst.device = to;
  Stream stream;
  stream.device = from;
  if (!ok(cudaSetDevice(to), "cudaSetDevice", &error) ||
      !ok(cudaMalloc(&dst.ptr, bytes), "cudaMalloc", &error) ||
      !ok(cudaSetDevice(from), "cudaSetDevice", &error) ||
      !ok(cudaMalloc(&src.ptr, bytes), "cudaMalloc", &error) ||
      !ok(cudaMemset(src.ptr, 1, bytes), "cudaMemset", &error) ||
      !ok(cudaStreamCreateWithFlags(&stream.stream, cudaStreamNonBlocking), "cudaStreamCreate", &error) ||
      !ok(cudaDeviceSynchronize(), "cudaMemset", &error)) {
    result.note = error;
    return result;
  }
  // Without peer access the runtime stages the copy through host memory, which is what a job
  // gets on that pair.
  auto peerCopy = [&] { cudaMemcpyPeerAsync(dst.ptr, to, src.ptr, from, bytes, stream.stream); };
  result.copyEngineGBps = timeBandwidth(stream.stream, bytes, settings, peerCopy, &error);
  if (!result.peerAccess) {
    result.note = !error.empty() ? error
                  : !peerError.empty() ? peerError + " (SM stores and latency need peer access)"
                                       : "no peer access between the pair: SM stores and latency need it";
    return result;
  }
  const int blocks = copyBlocks(from);
  auto smStore = [&] {
    copyKernel<<<blocks, kThreadsPerBlock, 0, stream.stream>>>(
        static_cast<const int4*>(src.ptr), static_cast<int4*>(dst.ptr), bytes / sizeof(int4));
  };
  if (error.empty()) result.smStoreGBps = timeBandwidth(stream.stream, bytes, settings, smStore, &error);
  ok(cudaGetLastError(), "store kernel", &error);

  // Flags: each GPU polls its own memory and the other stores into it across the link.
  DeviceBuffer fromFlag, toFlag, timing;
  fromFlag.device = timing.device = from;
  toFlag.device = to;
  Stream peerStream;
  peerStream.device = to;
  if (error.empty() && ok(cudaSetDevice(to), "cudaSetDevice", &error) &&
      ok(cudaMalloc(&toFlag.ptr, sizeof(uint64_t)), "cudaMalloc", &error) &&
      ok(cudaMemset(toFlag.ptr, 0, sizeof(uint64_t)), "cudaMemset", &error) &&
      ok(cudaStreamCreateWithFlags(&peerStream.stream, cudaStreamNonBlocking), "cudaStreamCreate", &error) &&
      ok(cudaSetDevice(from), "cudaSetDevice", &error) &&
      ok(cudaMalloc(&fromFlag.ptr, sizeof(uint64_t)), "cudaMalloc", &error) &&
      ok(cudaMalloc(&timing.ptr, 2 * sizeof(uint64_t)), "cudaMalloc", &error) &&
      ok(cudaMemset(fromFlag.ptr, 0, sizeof(uint64_t)), "cudaMemset", &error) &&
      ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", &error) &&
      ok(cudaSetDevice(to), "cudaSetDevice", &error) &&
      // The flags must be zero before either kernel starts: the kernels' non-blocking streams do
      // not wait for cudaMemset.
      ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", &error)) {
    // The responder first: it waits (bounded) for the pinger, which starts right after.
    cudaSetDevice(to);
    pongKernel<<<1, 1, 0, peerStream.stream>>>(static_cast<uint64_t*>(fromFlag.ptr),
                                                static_cast<const uint64_t*>(toFlag.ptr),
                                                settings.roundTrips);
    cudaSetDevice(from);
    pingKernel<<<1, 1, 0, stream.stream>>>(static_cast<uint64_t*>(toFlag.ptr),
                                           static_cast<const uint64_t*>(fromFlag.ptr),
                                           settings.roundTrips, static_cast<uint64_t*>(timing.ptr));
    uint64_t measured[2] = {0, 1};
    if (ok(cudaStreamSynchronize(stream.stream), "ping kernel", &error) &&
        ok(cudaMemcpy(measured, timing.ptr, sizeof(measured), cudaMemcpyDeviceToHost), "cudaMemcpy", &error)) {
      if (measured[1] == 0 && settings.roundTrips > 1) {
        result.latencyMicros = double(measured[0]) / 1000.0 / (2.0 * (settings.roundTrips - 1));
      } else {
        result.note = "the peer did not answer the ping within 2 s";
      }
    }
    cudaSetDevice(to);
    ok(cudaStreamSynchronize(peerStream.stream), "pong kernel", &error);
  }
  if (!error.empty()) result.note = error;
  return result;
}

}  // namespace doctor
}  // namespace flashccl
