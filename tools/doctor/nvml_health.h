// The per-GPU state doctor reads from NVML: ECC, remapped rows, retired pages, clocks and
// throttle reasons, the PCIe link, the memory interface and the NVLink rate. Read-only queries
// only: doctor never changes clocks, power limits or modes.
//
// The session itself (dlopen, nvmlInit) is topology detection's NvmlSession; the queries below
// are bound from the same library handle, each optional: an NVML without one (older drivers) or
// a GPU that does not support it gives a reading whose `why` says so, never a failure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "topo/nvml_loader.h"

namespace flashccl {
namespace doctor {

// A value NVML may or may not give; `why` explains a missing one ("not supported by this GPU").
template <typename T>
struct Reading {
  bool known = false;
  T value{};
  std::string why;
};

struct RemappedRows {
  unsigned corrected = 0;    // rows remapped after correctable errors
  unsigned uncorrected = 0;  // rows remapped after uncorrectable errors
  bool pending = false;      // a remap waits for the next GPU reset
  bool failed = false;       // a remap could not be done (the bank has no spare row left)
};

struct RetiredPages {
  unsigned singleBit = 0;  // retired after repeated single-bit errors
  unsigned doubleBit = 0;  // retired after a double-bit error
  bool pending = false;    // retirement waits for the next reboot
};

struct Clocks {
  unsigned sm = 0, smMax = 0;    // MHz
  unsigned mem = 0, memMax = 0;  // MHz
};

struct PcieLinkState {
  int generation = 0;       // current
  int width = 0;            // current
  int maxGeneration = 0;    // what this GPU in this system can reach
  int maxWidth = 0;
  int gpuMaxGeneration = 0;  // what the GPU alone could reach (0 = unknown)
};

// What changes with load: sampled at rest and again while copies keep the GPU busy (an idle GPU
// lowers its link speed and clocks to save power, so an idle reading understates both).
struct LoadSample {
  Reading<PcieLinkState> pcie;
  Reading<Clocks> clocks;
  Reading<uint64_t> throttleReasons;  // nvmlClocksThrottleReason* bits
};

struct GpuHealth {
  int index = -1;  // NVML index
  std::string name;
  std::string busId;  // "0000:18:00.0"
  std::string uuid;   // "GPU-..."
  Reading<bool> eccEnabled;
  Reading<bool> eccPendingChange;  // the pending mode differs from the current one
  Reading<uint64_t> uncorrectedVolatile;   // since the last driver load
  Reading<uint64_t> uncorrectedAggregate;  // over the GPU's life
  Reading<uint64_t> correctedVolatile;
  Reading<RemappedRows> remappedRows;
  Reading<RetiredPages> retiredPages;
  LoadSample atRest;
  Reading<int> memoryBusWidth;     // bits
  Reading<int> memoryClockMaxMHz;  // MHz, as NVML counts it (x2 for the data rate)
  Reading<double> nvlinkMBpsPerLink;  // NVLink rate per link and direction, MB/s
};

// NVML's clock event (formerly "throttle") reason bits, named as doctor's checks use them.
namespace throttle {
constexpr uint64_t kGpuIdle = nvmlClocksEventReasonGpuIdle;
constexpr uint64_t kApplicationsClocksSetting = nvmlClocksEventReasonApplicationsClocksSetting;
constexpr uint64_t kSwPowerCap = nvmlClocksEventReasonSwPowerCap;
constexpr uint64_t kHwSlowdown = nvmlClocksThrottleReasonHwSlowdown;
constexpr uint64_t kSyncBoost = nvmlClocksEventReasonSyncBoost;
constexpr uint64_t kSwThermalSlowdown = nvmlClocksEventReasonSwThermalSlowdown;
constexpr uint64_t kHwThermalSlowdown = nvmlClocksThrottleReasonHwThermalSlowdown;
constexpr uint64_t kHwPowerBrakeSlowdown = nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
constexpr uint64_t kDisplayClockSetting = nvmlClocksEventReasonDisplayClockSetting;
// "HwSlowdown, SwThermalSlowdown" (empty for none).
std::string reasonNames(uint64_t bits);
}  // namespace throttle

class NvmlHealth {
 public:
  // nullptr with *error set when NVML cannot be loaded or initialised.
  static std::unique_ptr<NvmlHealth> open(const std::string& library, std::string* error);
  ~NvmlHealth();

  Reading<std::string> driverVersion() const;  // "580.65.06"
  Reading<int> cudaDriverVersion() const;      // 13000 = CUDA 13.0
  int gpuCount() const { return int(devices_.size()); }
  // Everything above for NVML GPU `index`.
  GpuHealth read(int index) const;
  LoadSample sample(int index) const;
  // NVML index of the GPU at `busId` ("0000:18:00.0"), -1 if none.
  int indexOfBusId(const std::string& busId) const;

 private:
  struct Functions;
  NvmlHealth() = default;
  Reading<PcieLinkState> pcieLink(nvmlDevice_t device) const;
  std::unique_ptr<NvmlSession> session_;
  std::unique_ptr<Functions> fn_;
  std::vector<nvmlDevice_t> devices_;
  std::vector<std::string> busIds_;
};

}  // namespace doctor
}  // namespace flashccl
