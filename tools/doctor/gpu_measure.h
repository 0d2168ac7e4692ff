// The measurements doctor makes with CUDA: host <-> device copies, the device memory copy
// kernel, and GPU pairs (copy engine, SM stores, one-way latency). Each returns numbers or an
// error text, never throws, and never leaves a kernel waiting forever (every spin has a time
// limit). Nothing here changes clocks, power or device modes, and nothing uses NVLink multicast.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace flashccl {
namespace doctor {

struct MeasureSettings {
  size_t hostBytes = 64u << 20;     // per host <-> device copy
  size_t memoryBytes = 256u << 20;  // per buffer of the device copy kernel
  size_t pairBytes = 64u << 20;     // per peer copy
  int batch = 4;                    // copies per timed block
  int reps = 5;                     // timed blocks; the median counts
  int roundTrips = 2000;            // latency ping-pongs
};

MeasureSettings quickSettings();
MeasureSettings fullSettings();

// CUDA devices this process sees; 0 with *why set when none (no driver, none visible).
int cudaDeviceCount(std::string* why);
std::string cudaBusId(int device);  // "0000:18:00.0", "" if unknown
int cudaRuntimeVersion();
int cudaDriverVersion(std::string* why);  // 0 when there is no driver

struct HostLinkResult {
  double h2dGBps = 0.0;
  double d2hGBps = 0.0;
  std::string error;
};
// `whileBusy` runs once while host-to-device copies keep the link loaded (NVML samples).
HostLinkResult measureHostLink(int device, const MeasureSettings& settings,
                               const std::function<void()>& whileBusy);

struct MemoryResult {
  double copyGBps = 0.0;  // (read + write) bytes per second of the copy kernel
  int busWidthBits = 0;   // CUDA's view of the memory interface, for the expected rate
  int memoryClockMHz = 0;
  std::string error;
};
// `whileBusy` runs once while copy kernels keep the SMs and memory busy (clock samples).
MemoryResult measureMemory(int device, const MeasureSettings& settings,
                           const std::function<void()>& whileBusy);

struct PairResult {
  bool peerAccess = false;  // both directions
  double copyEngineGBps = 0.0;
  double smStoreGBps = 0.0;    // 0 without peer access
  double latencyMicros = 0.0;  // 0 without peer access or when the ping-pong timed out
  std::string note;            // what could not be measured and why
};
PairResult measurePair(int from, int to, const MeasureSettings& settings);

}  // namespace doctor
}  // namespace flashccl
