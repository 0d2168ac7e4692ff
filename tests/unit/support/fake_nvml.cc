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
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

namespace {

constexpr int kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3, kDriverNotLoaded = 9;

struct PciInfo {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};

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
int healthNumber(int gpu, const char* key, T* out) {
  std::string value;
  if (!healthValue(gpu, key, &value)) return 3;  // NVML_ERROR_NOT_SUPPORTED
  *out = T(std::strtoull(value.c_str(), nullptr, 0));
  return 0;
}

const unsigned int kHgxBuses[8] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};
const unsigned int kSwitchBus = 0x05;

// Handles are 1-based indices disguised as pointers.
int indexOf(void* device) {
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

int nvmlInit_v2() {
  const char* kind = std::getenv("FLASHCCL_FAKE_NVML_MACHINE");
  loadHealth();
  machine = Machine();
  machine.kind = kind ? kind : "";
  if (machine.kind == "init-fails") return kDriverNotLoaded;
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
  return kSuccess;
}

int nvmlShutdown() { return kSuccess; }

const char* nvmlErrorString(int rc) {
  return rc == kDriverNotLoaded ? "Driver Not Loaded" : "fake NVML error";
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = unsigned(machine.count);
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (int(index) >= machine.count) return kInvalidArgument;
  *device = reinterpret_cast<void*>(long(index) + 1);
  return kSuccess;
}

int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  std::snprintf(name, length, "%s", machine.gpus[i].name);
  return kSuccess;
}

int nvmlDeviceGetPciInfo_v3(void* device, PciInfo* pci) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  fillPci(machine.gpus[i].bus, machine.gpus[i].device, pci);
  return kSuccess;
}

int nvmlDeviceGetCudaComputeCapability(void* device, int* major, int* minor) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  const bool ada = machine.kind == "l40s-pcie-8";
  *major = ada ? 8 : 9;
  *minor = ada ? 9 : 0;
  return kSuccess;
}

int nvmlDeviceGetNvLinkState(void* device, unsigned int link, int* active) {
  if (indexOf(device) < 0) return kInvalidArgument;
  if (link >= 18) return kInvalidArgument;  // NVML_NVLINK_MAX_LINKS
  if (!hasNvlink()) return kNotSupported;
  *active = 1;
  return kSuccess;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(void* device, unsigned int link, PciInfo* pci) {
  const int i = indexOf(device);
  if (i < 0 || link >= 18 || !hasNvlink()) return kInvalidArgument;
  if (machine.kind == "hgx-h200-8") {
    fillPci(kSwitchBus + link % 4, 0, pci);  // four NVSwitches
  } else if (machine.kind == "h200-vm-pair") {
    fillPci(0, 0, pci);
    std::snprintf(pci->busId, sizeof(pci->busId), "FFFFFFFF:FF:FF.0");
  } else {
    fillPci(machine.gpus[1 - i].bus, machine.gpus[1 - i].device, pci);
  }
  return kSuccess;
}

#ifndef FAKE_NVML_NO_REMOTE_TYPE
int nvmlDeviceGetNvLinkRemoteDeviceType(void* device, unsigned int link, int* type) {
  if (indexOf(device) < 0 || link >= 18 || !hasNvlink()) return kInvalidArgument;
  *type = remoteIsSwitch() ? 2 /* SWITCH */ : 0 /* GPU */;
  return kSuccess;
}
#endif

int nvmlDeviceGetP2PStatus(void* a, void* b, int capsIndex, int* status) {
  if (indexOf(a) < 0 || indexOf(b) < 0) return kInvalidArgument;
  if (capsIndex == 2 /* NVLINK */) *status = hasNvlink() ? 0 : 5 /* NOT_SUPPORTED */;
  else *status = 0;  // READ, WRITE, ...: supported everywhere in these machines
  return kSuccess;
}

int nvmlDeviceGetTopologyCommonAncestor(void* a, void* b, int* level) {
  const int i = indexOf(a), j = indexOf(b);
  if (i < 0 || j < 0) return kInvalidArgument;
  if (machine.kind == "h200-vm-pair") {
    *level = 30;  // HOSTBRIDGE, as the VM reports
    return kSuccess;
  }
  // Two NUMA nodes of four GPUs each; within a node, pairs share a PCIe switch.
  if (i / 4 != j / 4) *level = 50;       // SYSTEM
  else if (i / 2 == j / 2) *level = 10;  // SINGLE
  else *level = 40;                      // NODE
  return kSuccess;
}

// ---------------------------------------------------------------------------------------------
// Health queries (flashccl doctor), answered from FLASHCCL_FAKE_NVML_HEALTH.

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  std::string value;
  if (!healthValue(-1, "driver_version", &value)) return kNotSupported;
  std::snprintf(version, length, "%s", value.c_str());
  return kSuccess;
}

int nvmlSystemGetCudaDriverVersion_v2(int* version) { return healthNumber(-1, "cuda_driver_version", version); }

int nvmlDeviceGetUUID(void* device, char* uuid, unsigned int length) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  std::snprintf(uuid, length, "GPU-fa4e0000-0000-0000-0000-0000000000%02d", i);
  return kSuccess;
}

int nvmlDeviceGetEccMode(void* device, int* current, int* pending) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  if (healthNumber(i, "ecc_current", current) != kSuccess) return kNotSupported;
  if (healthNumber(i, "ecc_pending", pending) != kSuccess) *pending = *current;
  return kSuccess;
}

// errorType 0 corrected / 1 uncorrected; counterType 0 volatile / 1 aggregate.
int nvmlDeviceGetTotalEccErrors(void* device, int errorType, int counterType, unsigned long long* count) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  const char* keys[2][2] = {{"ecc_corrected_volatile", "ecc_corrected_aggregate"},
                            {"ecc_uncorrected_volatile", "ecc_uncorrected_aggregate"}};
  return healthNumber(i, keys[errorType & 1][counterType & 1], count);
}

int nvmlDeviceGetRemappedRows(void* device, unsigned* corrected, unsigned* uncorrected, unsigned* pending,
                              unsigned* failure) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  if (healthNumber(i, "remapped_corrected", corrected) != kSuccess) return kNotSupported;
  healthNumber(i, "remapped_uncorrected", uncorrected);
  healthNumber(i, "remap_pending", pending);
  healthNumber(i, "remap_failure", failure);
  return kSuccess;
}

// cause 0: multiple single-bit errors, 1: double-bit error. Only counts (addresses == nullptr).
int nvmlDeviceGetRetiredPages(void* device, int cause, unsigned* count, unsigned long long* addresses) {
  const int i = indexOf(device);
  if (i < 0 || addresses != nullptr) return kInvalidArgument;
  return healthNumber(i, cause == 0 ? "retired_sbe" : "retired_dbe", count);
}

int nvmlDeviceGetRetiredPagesPendingStatus(void* device, int* pending) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  return healthNumber(i, "retired_pending", pending);
}

// type 1: SM, 2: memory.
int nvmlDeviceGetClockInfo(void* device, int type, unsigned* mhz) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  return healthNumber(i, type == 1 ? "clock_sm" : type == 2 ? "clock_mem" : "clock_other", mhz);
}

int nvmlDeviceGetMaxClockInfo(void* device, int type, unsigned* mhz) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  return healthNumber(i, type == 1 ? "clock_sm_max" : type == 2 ? "clock_mem_max" : "clock_other", mhz);
}

int nvmlDeviceGetCurrentClocksThrottleReasons(void* device, unsigned long long* reasons) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  return healthNumber(i, "throttle_reasons", reasons);
}

int nvmlDeviceGetCurrPcieLinkGeneration(void* device, unsigned* value) {
  const int i = indexOf(device);
  return i < 0 ? kInvalidArgument : healthNumber(i, "pcie_gen", value);
}
int nvmlDeviceGetCurrPcieLinkWidth(void* device, unsigned* value) {
  const int i = indexOf(device);
  return i < 0 ? kInvalidArgument : healthNumber(i, "pcie_width", value);
}
int nvmlDeviceGetMaxPcieLinkGeneration(void* device, unsigned* value) {
  const int i = indexOf(device);
  return i < 0 ? kInvalidArgument : healthNumber(i, "pcie_max_gen", value);
}
int nvmlDeviceGetMaxPcieLinkWidth(void* device, unsigned* value) {
  const int i = indexOf(device);
  return i < 0 ? kInvalidArgument : healthNumber(i, "pcie_max_width", value);
}
int nvmlDeviceGetGpuMaxPcieLinkGeneration(void* device, unsigned* value) {
  const int i = indexOf(device);
  return i < 0 ? kInvalidArgument : healthNumber(i, "pcie_gpu_max_gen", value);
}
int nvmlDeviceGetMemoryBusWidth(void* device, unsigned* bits) {
  const int i = indexOf(device);
  return i < 0 ? kInvalidArgument : healthNumber(i, "memory_bus_width", bits);
}

// nvmlFieldValue_t: {fieldId, scopeId, timestamp, latencyUsec, valueType, nvmlReturn, value}.
struct FieldValue {
  unsigned fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType, nvmlReturn;
  unsigned long long value;
};

int nvmlDeviceGetFieldValues(void* device, int count, FieldValue* values) {
  const int i = indexOf(device);
  if (i < 0) return kInvalidArgument;
  for (int v = 0; v < count; ++v) {
    unsigned speed = 0;
    values[v].valueType = 1;  // unsigned int
    values[v].value = 0;
    values[v].nvmlReturn = values[v].fieldId == 90 /* NVLINK_SPEED_MBPS_COMMON */
                               ? healthNumber(i, "nvlink_speed_mbps", &speed)
                               : kNotSupported;
    values[v].value = speed;
  }
  return kSuccess;
}

}  // extern "C"
