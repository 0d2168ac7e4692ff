#include "algo/driver_launch.h"

#include <atomic>
#include <cstdint>
#include <mutex>

#include "base/driver_entry.h"

namespace flashccl {

namespace {

// CUresult cuLaunchKernel(CUfunction, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes,
// CUstream, void** params, void** extra), with CUkernel handles passed as CUfunction.
using DriverLaunch = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             void*, void**, void**);

DriverLaunch driverLaunch() {
  static const DriverLaunch function = reinterpret_cast<DriverLaunch>(driverEntryPoint("cuLaunchKernel"));
  return function;
}

// Kernel function pointer -> CUkernel, looked up without a lock: open addressing over a fixed
// table that only grows (the few hundred kernel instantiations we have fit many times over).
// A slot's handle is written before its key is published, so a reader that sees the key sees the
// handle. A full table, or a kernel without a handle, means the runtime launches that kernel.
constexpr size_t kSlots = 2048;
struct HandleTable {
  std::atomic<const void*> keys[kSlots];
  void* handles[kSlots];
  std::mutex insertMutex;
};

HandleTable& table() {
  static HandleTable* t = new HandleTable();  // never destroyed: launches may come during exit
  return *t;
}

size_t slotOf(const void* kernel) {
  return (reinterpret_cast<uintptr_t>(kernel) >> 4) * 0x9e3779b97f4a7c15ull >> 53;  // 11 bits
}

void* findHandle(HandleTable& t, const void* kernel) {
  for (size_t i = slotOf(kernel), probes = 0; probes < kSlots; i = (i + 1) % kSlots, ++probes) {
    const void* key = t.keys[i].load(std::memory_order_acquire);
    if (key == kernel) return t.handles[i];
    if (key == nullptr) return nullptr;
  }
  return nullptr;
}

void* insertHandle(HandleTable& t, const void* kernel) {
  std::lock_guard<std::mutex> lock(t.insertMutex);
  if (void* found = findHandle(t, kernel)) return found;
  cudaKernel_t handle = nullptr;
  if (cudaGetKernel(&handle, kernel) != cudaSuccess || handle == nullptr) {
    cudaGetLastError();
    return nullptr;  // not cached: such a kernel keeps asking, and keeps going through the runtime
  }
  for (size_t i = slotOf(kernel), probes = 0; probes < kSlots; i = (i + 1) % kSlots, ++probes) {
    if (t.keys[i].load(std::memory_order_relaxed) != nullptr) continue;
    t.handles[i] = handle;
    t.keys[i].store(kernel, std::memory_order_release);
    return handle;
  }
  return nullptr;
}

}  // namespace

namespace {
thread_local LaunchCounter* tCounter = nullptr;
}  // namespace

LaunchCounter::LaunchCounter() : previous_(tCounter) { tCounter = this; }
LaunchCounter::~LaunchCounter() { tCounter = previous_; }

bool LaunchCounter::count(dim3 grid) {
  LaunchCounter* counter = tCounter;
  if (counter == nullptr) return false;
  if (counter->launches_ < kMaxLaunches) counter->blocks_[counter->launches_++] = grid.x * grid.y * grid.z;
  return true;
}

cudaError_t launchThroughDriver(const void* kernel, dim3 grid, dim3 block, void** args, cudaStream_t stream) {
  if (LaunchCounter::count(grid)) return cudaSuccess;
  if (const DriverLaunch launch = driverLaunch()) {
    HandleTable& t = table();
    void* handle = findHandle(t, kernel);
    if (handle == nullptr) handle = insertHandle(t, kernel);
    if (handle != nullptr &&
        launch(handle, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, stream, args, nullptr) == 0) {
      return cudaSuccess;
    }
  }
  return cudaLaunchKernel(kernel, grid, block, args, 0, stream);
}

cudaError_t launchCooperative(const void* kernel, dim3 grid, dim3 block, void** args, cudaStream_t stream) {
  if (LaunchCounter::count(grid)) return cudaSuccess;
  cudaLaunchAttribute cooperative;
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  return cudaLaunchKernelExC(&config, kernel, args);
}

}  // namespace flashccl
