// A fake libnvidia-ml.so for the topology detection tests: the NVML entry points topology
// detection uses, describing a machine picked by FLASHCCL_FAKE_NVML_MACHINE (read at nvmlInit):
//
//   hgx-h200-8      8 x "NVIDIA H200", 18 NVLinks each, all to NVSwitch ports
//   h200-nv18-pair  2 x "NVIDIA H200", 18 NVLinks joining them directly
//   l40s-pcie-8     8 x "NVIDIA L40S", no NVLink; GPUs 0-3 and 4-7 on two NUMA nodes
//   h200-vm-pair    what NVML reported on our 2 x H200 test VM (2026-11-30, python ctypes probe):
//                   GPUs at 0000:00:06.0 and 0000:00:07.0, 18 active links each, every one to an
//                   NVSwitch port whose PCI address reads FFFFFFFF:FF:FF.0 (the switch is not in
//                   the VM), common ancestor HOSTBRIDGE, NVLink P2P OK
//   init-fails      nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED
//
// Built twice: once complete, once (FAKE_NVML_NO_REMOTE_TYPE) without
// nvmlDeviceGetNvLinkRemoteDeviceType, like NVML from drivers before r460.
//
// The health queries `flashccl doctor` makes (driver version, ECC, remapped rows, retired pages,
// clocks, throttle reasons, PCIe link, memory bus, NVLink speed) answer from the file named by
// FLASHCCL_FAKE_NVML_HEALTH: `key = value` lines, a key given for every GPU or as `gpuN.key` for
// GPU N alone; `#` starts a comment. A key that is absent makes its query NVML_ERROR_NOT_SUPPORTED,
// as on a GPU without the feature (tests/unit/doctor/data/*.nvml are the recorded machines).
// Defined against nvml.h's own declarations, so a signature that drifts from NVML's ABI does not
// compile.
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <nvml.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

namespace {

using PciInfo = nvmlPciInfo_t;

struct FakeGpu {
  const char* name;
  unsigned int bus;
  unsigned int device;
};

struct Machine {
  std::string kind;
  int count = 0;
  FakeGpu gpus[8];
};

Machine machine;
std::map<std::string, std::string> health;  // from FLASHCCL_FAKE_NVML_HEALTH

void loadHealth() {
  health.clear();
  const char* path = std::getenv("FLASHCCL_FAKE_NVML_HEALTH");
  if (path == nullptr) return;
  std::ifstream in(path);
  std::string line;
  auto trim = [](std::string text) {
    const size_t begin = text.find_first_not_of(" \t");
    const size_t end = text.find_last_not_of(" \t\r");
    return begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1);
  };
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const size_t equals = line.find('=');
    if (equals != std::string::npos) health[trim(line.substr(0, equals))] = trim(line.substr(equals + 1));
  }
}

// The value of `key` for GPU `gpu` (-1: a system-wide key); false when the file does not say.
bool healthValue(int gpu, const char* key, std::string* value) {
  auto it = gpu >= 0 ? health.find("gpu" + std::to_string(gpu) + "." + key) : health.end();
  if (it == health.end()) it = health.find(key);
  if (it == health.end()) return false;
  *value = it->second;
  return true;
}

template <typename T>
nvmlReturn_t healthNumber(int gpu, const char* key, T* out) {
  std::string value;
  if (!healthValue(gpu, key, &value)) return NVML_ERROR_NOT_SUPPORTED;
  *out = T(std::strtoull(value.c_str(), nullptr, 0));
  return NVML_SUCCESS;
}

const unsigned int kHgxBuses[8] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};
const unsigned int kSwitchBus = 0x05;

// Handles are 1-based indices disguised as pointers.
int indexOf(nvmlDevice_t device) {
  const long index = reinterpret_cast<long>(device) - 1;
  return index >= 0 && index < machine.count ? int(index) : -1;
}

void fillPci(unsigned int bus, unsigned int device, PciInfo* pci) {
  std::memset(pci, 0, sizeof(*pci));
  pci->bus = bus;
  pci->device = device;
  std::snprintf(pci->busId, sizeof(pci->busId), "00000000:%02X:%02X.0", bus, device);
  std::snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "0000:%02X:%02X.0", bus, device);
}

bool hasNvlink() {
  return machine.kind == "hgx-h200-8" || machine.kind == "h200-nv18-pair" ||
         machine.kind == "h200-vm-pair";
}

bool remoteIsSwitch() { return machine.kind == "hgx-h200-8" || machine.kind == "h200-vm-pair"; }

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2() {
  const char* kind = std::getenv("FLASHCCL_FAKE_NVML_MACHINE");
  loadHealth();
  machine = Machine();
  machine.kind = kind ? kind : "";
  if (machine.kind == "init-fails") return NVML_ERROR_DRIVER_NOT_LOADED;
  if (machine.kind == "hgx-h200-8") {
    machine.count = 8;
    for (int i = 0; i < 8; ++i) machine.gpus[i] = {"NVIDIA H200", kHgxBuses[i], 0};
  } else if (machine.kind == "h200-nv18-pair") {
    machine.count = 2;
    machine.gpus[0] = {"NVIDIA H200", 0x18, 0};
    machine.gpus[1] = {"NVIDIA H200", 0x2a, 0};
  } else if (machine.kind == "h200-vm-pair") {
    machine.count = 2;
    machine.gpus[0] = {"NVIDIA H200", 0x00, 0x06};
    machine.gpus[1] = {"NVIDIA H200", 0x00, 0x07};
  } else if (machine.kind == "l40s-pcie-8") {
    machine.count = 8;
    for (int i = 0; i < 8; ++i) machine.gpus[i] = {"NVIDIA L40S", kHgxBuses[i], 0};
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown() { return NVML_SUCCESS; }

const char* nvmlErrorString(nvmlReturn_t rc) {
  return rc == NVML_ERROR_DRIVER_NOT_LOADED ? "Driver Not Loaded" : "fake NVML error";
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = unsigned(machine.count);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (int(index) >= machine.count) return NVML_ERROR_INVALID_ARGUMENT;
  *device = reinterpret_cast<nvmlDevice_t>(long(index) + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  std::snprintf(name, length, "%s", machine.gpus[i].name);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, PciInfo* pci) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  fillPci(machine.gpus[i].bus, machine.gpus[i].device, pci);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  const bool ada = machine.kind == "l40s-pcie-8";
  *major = ada ? 8 : 9;
  *minor = ada ? 9 : 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      nvmlEnableState_t* active) {
  if (indexOf(device) < 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (link >= 18) return NVML_ERROR_INVALID_ARGUMENT;  // NVML_NVLINK_MAX_LINKS
  if (!hasNvlink()) return NVML_ERROR_NOT_SUPPORTED;
  *active = NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, PciInfo* pci) {
  const int i = indexOf(device);
  if (i < 0 || link >= 18 || !hasNvlink()) return NVML_ERROR_INVALID_ARGUMENT;
  if (machine.kind == "hgx-h200-8") {
    fillPci(kSwitchBus + link % 4, 0, pci);  // four NVSwitches
  } else if (machine.kind == "h200-vm-pair") {
    fillPci(0, 0, pci);
    std::snprintf(pci->busId, sizeof(pci->busId), "FFFFFFFF:FF:FF.0");
  } else {
    fillPci(machine.gpus[1 - i].bus, machine.gpus[1 - i].device, pci);
  }
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_NO_REMOTE_TYPE
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                 nvmlIntNvLinkDeviceType_t* type) {
  if (indexOf(device) < 0 || link >= 18 || !hasNvlink()) return NVML_ERROR_INVALID_ARGUMENT;
  *type = remoteIsSwitch() ? NVML_NVLINK_DEVICE_TYPE_SWITCH : NVML_NVLINK_DEVICE_TYPE_GPU;
  return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, nvmlGpuP2PCapsIndex_t capsIndex,
                                    nvmlGpuP2PStatus_t* status) {
  if (indexOf(a) < 0 || indexOf(b) < 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (capsIndex == NVML_P2P_CAPS_INDEX_NVLINK)
    *status = hasNvlink() ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
  else
    *status = NVML_P2P_STATUS_OK;  // READ, WRITE, ...: supported everywhere in these machines
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b,
                                                 nvmlGpuTopologyLevel_t* level) {
  const int i = indexOf(a), j = indexOf(b);
  if (i < 0 || j < 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (machine.kind == "h200-vm-pair") {
    *level = NVML_TOPOLOGY_HOSTBRIDGE;  // as the VM reports
    return NVML_SUCCESS;
  }
  // Two NUMA nodes of four GPUs each; within a node, pairs share a PCIe switch.
  if (i / 4 != j / 4) *level = NVML_TOPOLOGY_SYSTEM;
  else if (i / 2 == j / 2) *level = NVML_TOPOLOGY_SINGLE;
  else *level = NVML_TOPOLOGY_NODE;
  return NVML_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// Health queries (flashccl doctor), answered from FLASHCCL_FAKE_NVML_HEALTH.

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  std::string value;
  if (!healthValue(-1, "driver_version", &value)) return NVML_ERROR_NOT_SUPPORTED;
  std::snprintf(version, length, "%s", value.c_str());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* version) {
  return healthNumber(-1, "cuda_driver_version", version);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  std::snprintf(uuid, length, "GPU-fa4e0000-0000-0000-0000-0000000000%02d", i);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t* current, nvmlEnableState_t* pending) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (healthNumber(i, "ecc_current", current) != NVML_SUCCESS) return NVML_ERROR_NOT_SUPPORTED;
  if (healthNumber(i, "ecc_pending", pending) != NVML_SUCCESS) *pending = *current;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType, unsigned long long* count) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  const bool uncorrected = errorType == NVML_MEMORY_ERROR_TYPE_UNCORRECTED;
  const bool aggregate = counterType == NVML_AGGREGATE_ECC;
  const char* keys[2][2] = {{"ecc_corrected_volatile", "ecc_corrected_aggregate"},
                            {"ecc_uncorrected_volatile", "ecc_uncorrected_aggregate"}};
  return healthNumber(i, keys[uncorrected][aggregate], count);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* corrected, unsigned int* uncorrected,
                                       unsigned int* pending, unsigned int* failure) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (healthNumber(i, "remapped_corrected", corrected) != NVML_SUCCESS) return NVML_ERROR_NOT_SUPPORTED;
  healthNumber(i, "remapped_uncorrected", uncorrected);
  healthNumber(i, "remap_pending", pending);
  healthNumber(i, "remap_failure", failure);
  return NVML_SUCCESS;
}

// Only counts (addresses == nullptr), as doctor asks.
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                       unsigned int* count, unsigned long long* addresses) {
  const int i = indexOf(device);
  if (i < 0 || addresses != nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return healthNumber(i, cause == NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS ? "retired_sbe"
                                                                                          : "retired_dbe",
                      count);
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t* pending) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  return healthNumber(i, "retired_pending", pending);
}

static const char* clockKey(nvmlClockType_t type, bool max) {
  if (type == NVML_CLOCK_SM) return max ? "clock_sm_max" : "clock_sm";
  if (type == NVML_CLOCK_MEM) return max ? "clock_mem_max" : "clock_mem";
  return "clock_other";
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* mhz) {
  const int i = indexOf(device);
  return i < 0 ? NVML_ERROR_INVALID_ARGUMENT : healthNumber(i, clockKey(type, false), mhz);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* mhz) {
  const int i = indexOf(device);
  return i < 0 ? NVML_ERROR_INVALID_ARGUMENT : healthNumber(i, clockKey(type, true), mhz);
}

// The older name only, as drivers before r535 have it: doctor falls back to it.
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long* reasons) {
  const int i = indexOf(device);
  return i < 0 ? NVML_ERROR_INVALID_ARGUMENT : healthNumber(i, "throttle_reasons", reasons);
}

// One PCIe or memory-bus query: the key's value for the device.
static nvmlReturn_t deviceNumber(nvmlDevice_t device, const char* key, unsigned int* value) {
  const int i = indexOf(device);
  return i < 0 ? NVML_ERROR_INVALID_ARGUMENT : healthNumber(i, key, value);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* value) {
  return deviceNumber(device, "pcie_gen", value);
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* value) {
  return deviceNumber(device, "pcie_width", value);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* value) {
  return deviceNumber(device, "pcie_max_gen", value);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* value) {
  return deviceNumber(device, "pcie_max_width", value);
}
nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* value) {
  return deviceNumber(device, "pcie_gpu_max_gen", value);
}
nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int* bits) {
  return deviceNumber(device, "memory_bus_width", bits);
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t* values) {
  const int i = indexOf(device);
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT;
  for (int v = 0; v < count; ++v) {
    unsigned int speed = 0;
    values[v].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    values[v].nvmlReturn = values[v].fieldId == NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON
                               ? healthNumber(i, "nvlink_speed_mbps", &speed)
                               : NVML_ERROR_NOT_SUPPORTED;
    values[v].value.uiVal = speed;
  }
  return NVML_SUCCESS;
}

}  // extern "C"
