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
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

}  // extern "C"
