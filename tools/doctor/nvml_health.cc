#include "nvml_health.h"

#include <dlfcn.h>

#include "topo/topology.h"

namespace flashccl {
namespace doctor {

namespace {

double fieldAsDouble(const nvmlFieldValue_t& field) {
  switch (field.valueType) {
    case NVML_VALUE_TYPE_DOUBLE: return field.value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return field.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return double(field.value.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return double(field.value.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return double(field.value.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT: return field.value.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return field.value.usVal;
    default: return field.value.uiVal;
  }
}

template <typename Fn>
void bind(void* handle, const char* symbol, Fn* fn) {
  *fn = handle ? reinterpret_cast<Fn>(dlsym(handle, symbol)) : nullptr;
}

}  // namespace

// Every query is optional: bound by name, null when this NVML lacks it. The signatures are
// nvml.h's own, so one that drifts from NVML's ABI does not compile.
struct NvmlHealth::Functions {
  decltype(&nvmlSystemGetDriverVersion) systemGetDriverVersion = nullptr;
  decltype(&nvmlSystemGetCudaDriverVersion_v2) systemGetCudaDriverVersion = nullptr;
  decltype(&nvmlDeviceGetUUID) deviceGetUuid = nullptr;
  decltype(&nvmlDeviceGetEccMode) deviceGetEccMode = nullptr;
  decltype(&nvmlDeviceGetTotalEccErrors) deviceGetTotalEccErrors = nullptr;
  decltype(&nvmlDeviceGetRemappedRows) deviceGetRemappedRows = nullptr;
  decltype(&nvmlDeviceGetRetiredPages) deviceGetRetiredPages = nullptr;
  decltype(&nvmlDeviceGetRetiredPagesPendingStatus) deviceGetRetiredPagesPendingStatus = nullptr;
  decltype(&nvmlDeviceGetClockInfo) deviceGetClockInfo = nullptr;
  decltype(&nvmlDeviceGetMaxClockInfo) deviceGetMaxClockInfo = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons, or its older name ...ThrottleReasons (same signature).
  decltype(&nvmlDeviceGetCurrentClocksEventReasons) deviceGetThrottleReasons = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkGeneration) deviceGetCurrPcieLinkGeneration = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkWidth) deviceGetCurrPcieLinkWidth = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkGeneration) deviceGetMaxPcieLinkGeneration = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkWidth) deviceGetMaxPcieLinkWidth = nullptr;
  decltype(&nvmlDeviceGetGpuMaxPcieLinkGeneration) deviceGetGpuMaxPcieLinkGeneration = nullptr;
  decltype(&nvmlDeviceGetMemoryBusWidth) deviceGetMemoryBusWidth = nullptr;
  decltype(&nvmlDeviceGetFieldValues) deviceGetFieldValues = nullptr;
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
  if (base.deviceGetCount(&count) != NVML_SUCCESS) count = 0;
  for (unsigned index = 0; index < count; ++index) {
    nvmlDevice_t device = nullptr;
    if (base.deviceGetHandleByIndex(index, &device) != NVML_SUCCESS) device = nullptr;
    nvmlPciInfo_t pci{};
    std::string busId;
    if (device && base.deviceGetPciInfo(device, &pci) == NVML_SUCCESS) {
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
Reading<T> failed(const NvmlSession& session, nvmlReturn_t rc) {
  Reading<T> reading;
  reading.why = rc == NVML_ERROR_NOT_SUPPORTED ? "not supported by this GPU (NVML)"
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
  char buffer[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {0};
  const nvmlReturn_t rc = fn_->systemGetDriverVersion(buffer, sizeof(buffer));
  if (rc != NVML_SUCCESS) return failed<std::string>(*session_, rc);
  return known(std::string(buffer));
}

Reading<int> NvmlHealth::cudaDriverVersion() const {
  if (!fn_->systemGetCudaDriverVersion) return missing<int>("nvmlSystemGetCudaDriverVersion_v2");
  int version = 0;
  const nvmlReturn_t rc = fn_->systemGetCudaDriverVersion(&version);
  if (rc != NVML_SUCCESS) return failed<int>(*session_, rc);
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
  const nvmlDevice_t device = devices_.at(size_t(index));
  if (device == nullptr) return taken;
  taken.pcie = pcieLink(device);
  const NvmlSession& session = *session_;
  if (!fn_->deviceGetClockInfo || !fn_->deviceGetMaxClockInfo) {
    taken.clocks = missing<Clocks>("nvmlDeviceGetClockInfo");
  } else {
    Clocks clocks;
    nvmlReturn_t rc = NVML_SUCCESS;
    for (auto query : {std::make_pair(NVML_CLOCK_SM, &clocks.sm), std::make_pair(NVML_CLOCK_MEM, &clocks.mem)}) {
      if (rc == NVML_SUCCESS) rc = fn_->deviceGetClockInfo(device, query.first, query.second);
    }
    for (auto query : {std::make_pair(NVML_CLOCK_SM, &clocks.smMax), std::make_pair(NVML_CLOCK_MEM, &clocks.memMax)}) {
      if (rc == NVML_SUCCESS) rc = fn_->deviceGetMaxClockInfo(device, query.first, query.second);
    }
    taken.clocks = rc == NVML_SUCCESS ? known(clocks) : failed<Clocks>(session, rc);
  }
  if (!fn_->deviceGetThrottleReasons) {
    taken.throttleReasons = missing<uint64_t>("nvmlDeviceGetCurrentClocksThrottleReasons");
  } else {
    unsigned long long reasons = 0;
    const nvmlReturn_t rc = fn_->deviceGetThrottleReasons(device, &reasons);
    taken.throttleReasons = rc == NVML_SUCCESS ? known(uint64_t(reasons)) : failed<uint64_t>(session, rc);
  }
  return taken;
}

Reading<PcieLinkState> NvmlHealth::pcieLink(nvmlDevice_t device) const {
  if (!fn_->deviceGetCurrPcieLinkGeneration || !fn_->deviceGetCurrPcieLinkWidth ||
      !fn_->deviceGetMaxPcieLinkGeneration || !fn_->deviceGetMaxPcieLinkWidth) {
    return missing<PcieLinkState>("nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}");
  }
  unsigned gen = 0, width = 0, maxGen = 0, maxWidth = 0;
  for (auto query : {std::make_pair(fn_->deviceGetCurrPcieLinkGeneration, &gen),
                     std::make_pair(fn_->deviceGetCurrPcieLinkWidth, &width),
                     std::make_pair(fn_->deviceGetMaxPcieLinkGeneration, &maxGen),
                     std::make_pair(fn_->deviceGetMaxPcieLinkWidth, &maxWidth)}) {
    const nvmlReturn_t rc = query.first(device, query.second);
    if (rc != NVML_SUCCESS) return failed<PcieLinkState>(*session_, rc);
  }
  PcieLinkState link;
  link.generation = int(gen);
  link.width = int(width);
  link.maxGeneration = int(maxGen);
  link.maxWidth = int(maxWidth);
  unsigned gpuMax = 0;
  if (fn_->deviceGetGpuMaxPcieLinkGeneration &&
      fn_->deviceGetGpuMaxPcieLinkGeneration(device, &gpuMax) == NVML_SUCCESS) {
    link.gpuMaxGeneration = int(gpuMax);
  }
  return known(link);
}

GpuHealth NvmlHealth::read(int index) const {
  GpuHealth gpu;
  gpu.index = index;
  gpu.busId = busIds_.at(size_t(index));
  const nvmlDevice_t device = devices_.at(size_t(index));
  const NvmlSession& session = *session_;
  if (device == nullptr) {
    gpu.name = "GPU NVML cannot open";
    return gpu;
  }
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {0};
  gpu.name = session.fn().deviceGetName(device, name, sizeof(name)) == NVML_SUCCESS ? name : "?";
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {0};
  if (fn_->deviceGetUuid && fn_->deviceGetUuid(device, uuid, sizeof(uuid)) == NVML_SUCCESS) {
    gpu.uuid = uuid;
  }

  if (!fn_->deviceGetEccMode) {
    gpu.eccEnabled = missing<bool>("nvmlDeviceGetEccMode");
  } else {
    nvmlEnableState_t current = NVML_FEATURE_DISABLED, pending = NVML_FEATURE_DISABLED;
    const nvmlReturn_t rc = fn_->deviceGetEccMode(device, &current, &pending);
    if (rc == NVML_SUCCESS) {
      gpu.eccEnabled = known(current == NVML_FEATURE_ENABLED);
      gpu.eccPendingChange = known(current != pending);
    } else {
      gpu.eccEnabled = failed<bool>(session, rc);
    }
  }
  auto eccCount = [&](nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter) -> Reading<uint64_t> {
    if (!fn_->deviceGetTotalEccErrors) return missing<uint64_t>("nvmlDeviceGetTotalEccErrors");
    unsigned long long count = 0;
    const nvmlReturn_t rc = fn_->deviceGetTotalEccErrors(device, type, counter, &count);
    if (rc != NVML_SUCCESS) return failed<uint64_t>(session, rc);
    return known(uint64_t(count));
  };
  gpu.uncorrectedVolatile = eccCount(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
  gpu.uncorrectedAggregate = eccCount(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);
  gpu.correctedVolatile = eccCount(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);

  if (!fn_->deviceGetRemappedRows) {
    gpu.remappedRows = missing<RemappedRows>("nvmlDeviceGetRemappedRows");
  } else {
    unsigned corrected = 0, uncorrected = 0, pending = 0, failure = 0;
    const nvmlReturn_t rc =
        fn_->deviceGetRemappedRows(device, &corrected, &uncorrected, &pending, &failure);
    if (rc == NVML_SUCCESS) {
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
    auto retired = [&](nvmlPageRetirementCause_t cause, unsigned* count) {
      const nvmlReturn_t rc = fn_->deviceGetRetiredPages(device, cause, count, nullptr);
      return rc == NVML_ERROR_INSUFFICIENT_SIZE ? NVML_SUCCESS : rc;
    };
    nvmlReturn_t rc = retired(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &pages.singleBit);
    if (rc == NVML_SUCCESS) rc = retired(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &pages.doubleBit);
    nvmlEnableState_t pending = NVML_FEATURE_DISABLED;
    if (rc == NVML_SUCCESS && fn_->deviceGetRetiredPagesPendingStatus) {
      rc = fn_->deviceGetRetiredPagesPendingStatus(device, &pending);
    }
    pages.pending = pending == NVML_FEATURE_ENABLED;
    gpu.retiredPages = rc == NVML_SUCCESS ? known(pages) : failed<RetiredPages>(session, rc);
  }

  gpu.atRest = sample(index);
  if (gpu.atRest.clocks.known) gpu.memoryClockMaxMHz = known(int(gpu.atRest.clocks.value.memMax));

  if (!fn_->deviceGetMemoryBusWidth) {
    gpu.memoryBusWidth = missing<int>("nvmlDeviceGetMemoryBusWidth");
  } else {
    unsigned width = 0;
    const nvmlReturn_t rc = fn_->deviceGetMemoryBusWidth(device, &width);
    gpu.memoryBusWidth = rc == NVML_SUCCESS ? known(int(width)) : failed<int>(session, rc);
  }

  if (!fn_->deviceGetFieldValues) {
    gpu.nvlinkMBpsPerLink = missing<double>("nvmlDeviceGetFieldValues");
  } else {
    nvmlFieldValue_t field = {};
    field.fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
    nvmlReturn_t rc = fn_->deviceGetFieldValues(device, 1, &field);
    if (rc == NVML_SUCCESS) rc = field.nvmlReturn;
    gpu.nvlinkMBpsPerLink = rc == NVML_SUCCESS ? known(fieldAsDouble(field)) : failed<double>(session, rc);
  }
  return gpu;
}

}  // namespace doctor
}  // namespace flashccl
