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
// Defined against nvml.h's own declarations, so a signature that drifts from NVML's ABI does not
// compile.
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <nvml.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
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

}  // extern "C"
