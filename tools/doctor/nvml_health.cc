#include "nvml_health.h"

#include <dlfcn.h>

#include "topo/topology.h"

namespace flashccl {
namespace doctor {

namespace {

// NVML ABI pieces beyond topo/nvml_api.h, with the values of nvml.h (CUDA 12/13).
constexpr nvml::Return kErrorInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr int kMemoryErrorCorrected = 0, kMemoryErrorUncorrected = 1;  // nvmlMemoryErrorType_t
constexpr int kVolatileEcc = 0, kAggregateEcc = 1;                     // nvmlEccCounterType_t
constexpr int kRetireMultipleSingleBit = 0, kRetireDoubleBit = 1;      // nvmlPageRetirementCause_t
constexpr int kClockSm = 1, kClockMem = 2;                             // nvmlClockType_t
constexpr unsigned kFieldNvlinkSpeedCommon = 90;  // NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned kUuidBufferSize = 96;           // NVML_DEVICE_UUID_V2_BUFFER_SIZE

// nvmlFieldValue_t: 40 bytes, the value a union of 8.
struct FieldValue {
  unsigned fieldId;
  unsigned scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;  // nvmlValueType_t: 0 double, 1 unsigned int, 2 unsigned long, 3 unsigned long
                  // long, 4 signed long long, 5 signed int
  nvml::Return nvmlReturn;
  union {
    double dVal;
    unsigned uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    int siVal;
  } value;
};
static_assert(sizeof(FieldValue) == 40, "nvmlFieldValue_t is 40 bytes");

double fieldAsDouble(const FieldValue& field) {
  switch (field.valueType) {
    case 0: return field.value.dVal;
    case 1: return field.value.uiVal;
    case 2: return double(field.value.ulVal);
    case 3: return double(field.value.ullVal);
    case 4: return double(field.value.sllVal);
    case 5: return field.value.siVal;
    default: return field.value.uiVal;
  }
}

template <typename Fn>
void bind(void* handle, const char* symbol, Fn* fn) {
  *fn = handle ? reinterpret_cast<Fn>(dlsym(handle, symbol)) : nullptr;
}

}  // namespace

struct NvmlHealth::Functions {
  using Device = nvml::Device;
  using Return = nvml::Return;
  Return (*systemGetDriverVersion)(char*, unsigned) = nullptr;
  Return (*systemGetCudaDriverVersion)(int*) = nullptr;
  Return (*deviceGetUuid)(Device, char*, unsigned) = nullptr;
  Return (*deviceGetEccMode)(Device, int*, int*) = nullptr;
  Return (*deviceGetTotalEccErrors)(Device, int, int, unsigned long long*) = nullptr;
  Return (*deviceGetRemappedRows)(Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  Return (*deviceGetRetiredPages)(Device, int, unsigned*, unsigned long long*) = nullptr;
  Return (*deviceGetRetiredPagesPendingStatus)(Device, int*) = nullptr;
  Return (*deviceGetClockInfo)(Device, int, unsigned*) = nullptr;
  Return (*deviceGetMaxClockInfo)(Device, int, unsigned*) = nullptr;
  Return (*deviceGetThrottleReasons)(Device, unsigned long long*) = nullptr;
  Return (*deviceGetCurrPcieLinkGeneration)(Device, unsigned*) = nullptr;
  Return (*deviceGetCurrPcieLinkWidth)(Device, unsigned*) = nullptr;
  Return (*deviceGetMaxPcieLinkGeneration)(Device, unsigned*) = nullptr;
  Return (*deviceGetMaxPcieLinkWidth)(Device, unsigned*) = nullptr;
  Return (*deviceGetGpuMaxPcieLinkGeneration)(Device, unsigned*) = nullptr;
  Return (*deviceGetMemoryBusWidth)(Device, unsigned*) = nullptr;
  Return (*deviceGetFieldValues)(Device, int, FieldValue*) = nullptr;
};

namespace throttle {
std::string reasonNames(uint64_t bits) {
  static const struct {
    uint64_t bit;
    const char* name;
  } kNames[] = {{kGpuIdle, "GpuIdle"},
                {kApplicationsClocksSetting, "ApplicationsClocksSetting"},
                {kSwPowerCap, "SwPowerCap"},
                {kHwSlowdown, "HwSlowdown"},
                {kSyncBoost, "SyncBoost"},
                {kSwThermalSlowdown, "SwThermalSlowdown"},
                {kHwThermalSlowdown, "HwThermalSlowdown"},
                {kHwPowerBrakeSlowdown, "HwPowerBrakeSlowdown"},
                {kDisplayClockSetting, "DisplayClockSetting"}};
  std::string text;
  for (const auto& entry : kNames) {
    if (bits & entry.bit) text += (text.empty() ? "" : ", ") + std::string(entry.name);
  }
  return text;
}
}  // namespace throttle

std::unique_ptr<NvmlHealth> NvmlHealth::open(const std::string& library, std::string* error) {
  std::unique_ptr<NvmlSession> session = NvmlSession::open(library, error);
  if (!session) return nullptr;
  std::unique_ptr<NvmlHealth> health(new NvmlHealth());
  health->session_ = std::move(session);
  health->fn_.reset(new Functions());
  // The session has the library loaded; RTLD_NOLOAD hands back the same handle.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  Functions& fn = *health->fn_;
  bind(handle, "nvmlSystemGetDriverVersion", &fn.systemGetDriverVersion);
  bind(handle, "nvmlSystemGetCudaDriverVersion_v2", &fn.systemGetCudaDriverVersion);
  if (!fn.systemGetCudaDriverVersion) bind(handle, "nvmlSystemGetCudaDriverVersion", &fn.systemGetCudaDriverVersion);
  bind(handle, "nvmlDeviceGetUUID", &fn.deviceGetUuid);
  bind(handle, "nvmlDeviceGetEccMode", &fn.deviceGetEccMode);
  bind(handle, "nvmlDeviceGetTotalEccErrors", &fn.deviceGetTotalEccErrors);
  bind(handle, "nvmlDeviceGetRemappedRows", &fn.deviceGetRemappedRows);
  bind(handle, "nvmlDeviceGetRetiredPages", &fn.deviceGetRetiredPages);
  bind(handle, "nvmlDeviceGetRetiredPagesPendingStatus", &fn.deviceGetRetiredPagesPendingStatus);
  bind(handle, "nvmlDeviceGetClockInfo", &fn.deviceGetClockInfo);
  bind(handle, "nvmlDeviceGetMaxClockInfo", &fn.deviceGetMaxClockInfo);
  bind(handle, "nvmlDeviceGetCurrentClocksEventReasons", &fn.deviceGetThrottleReasons);
  if (!fn.deviceGetThrottleReasons) bind(handle, "nvmlDeviceGetCurrentClocksThrottleReasons", &fn.deviceGetThrottleReasons);
  bind(handle, "nvmlDeviceGetCurrPcieLinkGeneration", &fn.deviceGetCurrPcieLinkGeneration);
  bind(handle, "nvmlDeviceGetCurrPcieLinkWidth", &fn.deviceGetCurrPcieLinkWidth);
  bind(handle, "nvmlDeviceGetMaxPcieLinkGeneration", &fn.deviceGetMaxPcieLinkGeneration);
  bind(handle, "nvmlDeviceGetMaxPcieLinkWidth", &fn.deviceGetMaxPcieLinkWidth);
  bind(handle, "nvmlDeviceGetGpuMaxPcieLinkGeneration", &fn.deviceGetGpuMaxPcieLinkGeneration);
  bind(handle, "nvmlDeviceGetMemoryBusWidth", &fn.deviceGetMemoryBusWidth);
  bind(handle, "nvmlDeviceGetFieldValues", &fn.deviceGetFieldValues);

  const NvmlFunctions& base = health->session_->fn();
  unsigned count = 0;
  if (base.deviceGetCount(&count) != nvml::kSuccess) count = 0;
  for (unsigned index = 0; index < count; ++index) {
    nvml::Device device = nullptr;
    if (base.deviceGetHandleByIndex(index, &device) != nvml::kSuccess) device = nullptr;
    nvml::PciInfo pci{};
    std::string busId;
    if (device && base.deviceGetPciInfo(device, &pci) == nvml::kSuccess) {
      busId = normalizePciBusId(pci.busId);
    }
    health->devices_.push_back(device);
    health->busIds_.push_back(busId);
  }
  return health;
}

NvmlHealth::~NvmlHealth() = default;

namespace {

// The `why` of a reading NVML could not give.
template <typename T>
Reading<T> missing(const char* function) {
  Reading<T> reading;
  reading.why = std::string("this NVML has no ") + function;
  return reading;
}

template <typename T>
Reading<T> failed(const NvmlSession& session, nvml::Return rc) {
  Reading<T> reading;
  reading.why = rc == nvml::kErrorNotSupported ? "not supported by this GPU (NVML)"
                                         : "NVML: " + session.errorText(rc);
  return reading;
}

template <typename T>
Reading<T> known(const T& value) {
  Reading<T> reading;
  reading.known = true;
  reading.value = value;
  return reading;
}

}  // namespace

Reading<std::string> NvmlHealth::driverVersion() const {
  if (!fn_->systemGetDriverVersion) return missing<std::string>("nvmlSystemGetDriverVersion");
  char buffer[kDriverVersionBufferSize] = {0};
  const nvml::Return rc = fn_->systemGetDriverVersion(buffer, sizeof(buffer));
  if (rc != nvml::kSuccess) return failed<std::string>(*session_, rc);
  return known(std::string(buffer));
}

Reading<int> NvmlHealth::cudaDriverVersion() const {
  if (!fn_->systemGetCudaDriverVersion) return missing<int>("nvmlSystemGetCudaDriverVersion_v2");
  int version = 0;
  const nvml::Return rc = fn_->systemGetCudaDriverVersion(&version);
  if (rc != nvml::kSuccess) return failed<int>(*session_, rc);
  return known(version);
}

int NvmlHealth::indexOfBusId(const std::string& busId) const {
  for (size_t i = 0; i < busIds_.size(); ++i) {
    if (!busId.empty() && busIds_[i] == busId) return int(i);
  }
  return -1;
}

LoadSample NvmlHealth::sample(int index) const {
  LoadSample taken;
  const nvml::Device device = devices_.at(size_t(index));
  if (device == nullptr) return taken;
  taken.pcie = pcieLink(device);
  const NvmlSession& session = *session_;
  if (!fn_->deviceGetClockInfo || !fn_->deviceGetMaxClockInfo) {
    taken.clocks = missing<Clocks>("nvmlDeviceGetClockInfo");
  } else {
    Clocks clocks;
    nvml::Return rc = nvml::kSuccess;
    for (auto query : {std::make_pair(kClockSm, &clocks.sm), std::make_pair(kClockMem, &clocks.mem)}) {
      if (rc == nvml::kSuccess) rc = fn_->deviceGetClockInfo(device, query.first, query.second);
    }
    for (auto query : {std::make_pair(kClockSm, &clocks.smMax), std::make_pair(kClockMem, &clocks.memMax)}) {
      if (rc == nvml::kSuccess) rc = fn_->deviceGetMaxClockInfo(device, query.first, query.second);
    }
    taken.clocks = rc == nvml::kSuccess ? known(clocks) : failed<Clocks>(session, rc);
  }
  if (!fn_->deviceGetThrottleReasons) {
    taken.throttleReasons = missing<uint64_t>("nvmlDeviceGetCurrentClocksThrottleReasons");
  } else {
    unsigned long long reasons = 0;
    const nvml::Return rc = fn_->deviceGetThrottleReasons(device, &reasons);
    taken.throttleReasons = rc == nvml::kSuccess ? known(uint64_t(reasons)) : failed<uint64_t>(session, rc);
  }
  return taken;
}

Reading<PcieLinkState> NvmlHealth::pcieLink(nvml::Device device) const {
  if (!fn_->deviceGetCurrPcieLinkGeneration || !fn_->deviceGetCurrPcieLinkWidth ||
      !fn_->deviceGetMaxPcieLinkGeneration || !fn_->deviceGetMaxPcieLinkWidth) {
    return missing<PcieLinkState>("nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}");
  }
  unsigned gen = 0, width = 0, maxGen = 0, maxWidth = 0;
  for (auto query : {std::make_pair(fn_->deviceGetCurrPcieLinkGeneration, &gen),
                     std::make_pair(fn_->deviceGetCurrPcieLinkWidth, &width),
                     std::make_pair(fn_->deviceGetMaxPcieLinkGeneration, &maxGen),
                     std::make_pair(fn_->deviceGetMaxPcieLinkWidth, &maxWidth)}) {
    const nvml::Return rc = query.first(device, query.second);
    if (rc != nvml::kSuccess) return failed<PcieLinkState>(*session_, rc);
  }
  PcieLinkState link;
  link.generation = int(gen);
  link.width = int(width);
  link.maxGeneration = int(maxGen);
  link.maxWidth = int(maxWidth);
  unsigned gpuMax = 0;
  if (fn_->deviceGetGpuMaxPcieLinkGeneration &&
      fn_->deviceGetGpuMaxPcieLinkGeneration(device, &gpuMax) == nvml::kSuccess) {
    link.gpuMaxGeneration = int(gpuMax);
  }
  return known(link);
}

GpuHealth NvmlHealth::read(int index) const {
  GpuHealth gpu;
  gpu.index = index;
  gpu.busId = busIds_.at(size_t(index));
  const nvml::Device device = devices_.at(size_t(index));
  const NvmlSession& session = *session_;
  if (device == nullptr) {
    gpu.name = "GPU NVML cannot open";
    return gpu;
  }
  char name[nvml::kDeviceNameBufferSize] = {0};
  gpu.name = session.fn().deviceGetName(device, name, sizeof(name)) == nvml::kSuccess ? name : "?";
  char uuid[kUuidBufferSize] = {0};
  if (fn_->deviceGetUuid && fn_->deviceGetUuid(device, uuid, sizeof(uuid)) == nvml::kSuccess) {
    gpu.uuid = uuid;
  }

  if (!fn_->deviceGetEccMode) {
    gpu.eccEnabled = missing<bool>("nvmlDeviceGetEccMode");
  } else {
    int current = 0, pending = 0;
    const nvml::Return rc = fn_->deviceGetEccMode(device, &current, &pending);
    if (rc == nvml::kSuccess) {
      gpu.eccEnabled = known(current == nvml::kFeatureEnabled);
      gpu.eccPendingChange = known(current != pending);
    } else {
      gpu.eccEnabled = failed<bool>(session, rc);
    }
  }
  auto eccCount = [&](int type, int counter) -> Reading<uint64_t> {
    if (!fn_->deviceGetTotalEccErrors) return missing<uint64_t>("nvmlDeviceGetTotalEccErrors");
    unsigned long long count = 0;
    const nvml::Return rc = fn_->deviceGetTotalEccErrors(device, type, counter, &count);
    if (rc != nvml::kSuccess) return failed<uint64_t>(session, rc);
    return known(uint64_t(count));
  };
  gpu.uncorrectedVolatile = eccCount(kMemoryErrorUncorrected, kVolatileEcc);
  gpu.uncorrectedAggregate = eccCount(kMemoryErrorUncorrected, kAggregateEcc);
  gpu.correctedVolatile = eccCount(kMemoryErrorCorrected, kVolatileEcc);

  if (!fn_->deviceGetRemappedRows) {
    gpu.remappedRows = missing<RemappedRows>("nvmlDeviceGetRemappedRows");
  } else {
    unsigned corrected = 0, uncorrected = 0, pending = 0, failure = 0;
    const nvml::Return rc =
        fn_->deviceGetRemappedRows(device, &corrected, &uncorrected, &pending, &failure);
    if (rc == nvml::kSuccess) {
      gpu.remappedRows = known(RemappedRows{corrected, uncorrected, pending != 0, failure != 0});
    } else {
      gpu.remappedRows = failed<RemappedRows>(session, rc);
    }
  }

  if (!fn_->deviceGetRetiredPages) {
    gpu.retiredPages = missing<RetiredPages>("nvmlDeviceGetRetiredPages");
  } else {
    RetiredPages pages;
    // A count of 0 asks for the number of pages without their addresses; some drivers answer
    // "insufficient size" with the count filled in when there are pages.
    auto retired = [&](int cause, unsigned* count) {
      const nvml::Return rc = fn_->deviceGetRetiredPages(device, cause, count, nullptr);
      return rc == kErrorInsufficientSize ? nvml::kSuccess : rc;
    };
    nvml::Return rc = retired(kRetireMultipleSingleBit, &pages.singleBit);
    if (rc == nvml::kSuccess) rc = retired(kRetireDoubleBit, &pages.doubleBit);
    int pending = 0;
    if (rc == nvml::kSuccess && fn_->deviceGetRetiredPagesPendingStatus) {
      rc = fn_->deviceGetRetiredPagesPendingStatus(device, &pending);
    }
    pages.pending = pending == nvml::kFeatureEnabled;
    gpu.retiredPages = rc == nvml::kSuccess ? known(pages) : failed<RetiredPages>(session, rc);
  }

  gpu.atRest = sample(index);
  if (gpu.atRest.clocks.known) gpu.memoryClockMaxMHz = known(int(gpu.atRest.clocks.value.memMax));

  if (!fn_->deviceGetMemoryBusWidth) {
    gpu.memoryBusWidth = missing<int>("nvmlDeviceGetMemoryBusWidth");
  } else {
    unsigned width = 0;
    const nvml::Return rc = fn_->deviceGetMemoryBusWidth(device, &width);
    gpu.memoryBusWidth = rc == nvml::kSuccess ? known(int(width)) : failed<int>(session, rc);
  }

  if (!fn_->deviceGetFieldValues) {
    gpu.nvlinkMBpsPerLink = missing<double>("nvmlDeviceGetFieldValues");
  } else {
    FieldValue field = {};
    field.fieldId = kFieldNvlinkSpeedCommon;
    nvml::Return rc = fn_->deviceGetFieldValues(device, 1, &field);
    if (rc == nvml::kSuccess) rc = field.nvmlReturn;
    gpu.nvlinkMBpsPerLink = rc == nvml::kSuccess ? known(fieldAsDouble(field)) : failed<double>(session, rc);
  }
  return gpu;
}

}  // namespace doctor
}  // namespace flashccl
