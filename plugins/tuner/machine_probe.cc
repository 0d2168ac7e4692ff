#include "machine_probe.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "topo/nvml_loader.h"

namespace flashccl {

namespace {

// Whether any active NVLink of `device` ends at an NVSwitch port. Without
// nvmlDeviceGetNvLinkRemoteDeviceType (drivers before r460), an end that is none of our GPUs is
// taken for a switch port, the only other NVLink endpoint in x86 servers.
bool reachesSwitch(const NvmlFunctions& fn, nvmlDevice_t device,
                   const std::vector<std::string>& gpuBusIds) {
  for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t state = NVML_FEATURE_DISABLED;
    const nvmlReturn_t rc = fn.deviceGetNvLinkState(device, link, &state);
    if (rc == NVML_ERROR_INVALID_ARGUMENT) break;  // past the GPU's last link
    if (rc != NVML_SUCCESS || state != NVML_FEATURE_ENABLED) continue;
    nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
    if (fn.deviceGetNvLinkRemoteDeviceType != nullptr &&
        fn.deviceGetNvLinkRemoteDeviceType(device, link, &type) == NVML_SUCCESS) {
      if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH) return true;
      continue;
    }
    nvmlPciInfo_t remote{};
    if (fn.deviceGetNvLinkRemotePciInfo(device, link, &remote) == NVML_SUCCESS &&
        std::find(gpuBusIds.begin(), gpuBusIds.end(), normalizePciBusId(remote.busId)) ==
            gpuBusIds.end()) {
      return true;
    }
  }
  return false;
}

}  // namespace

Topology probeMachineWithNvml(const std::string& nvmlLibrary, std::string* why) {
  Topology machine;
  machine.gpuSource = "none";
  std::string error;
  const std::unique_ptr<NvmlSession> session = NvmlSession::open(nvmlLibrary, &error);
  if (session == nullptr) {
    *why = "NVML: " + error;
    return machine;
  }
  const NvmlFunctions& fn = session->fn();
  unsigned int count = 0;
  const nvmlReturn_t rc = fn.deviceGetCount(&count);
  if (rc != NVML_SUCCESS) {
    *why = "NVML: nvmlDeviceGetCount_v2: " + session->errorText(rc);
    return machine;
  }
  machine.gpuSource = "NVML";
  std::vector<nvmlDevice_t> devices;
  std::vector<std::string> busIds;
  for (unsigned int index = 0; index < count; ++index) {
    nvmlDevice_t device = nullptr;
    // A GPU we may not query (another container's, or lost) is left out, as the library does.
    if (fn.deviceGetHandleByIndex(index, &device) != NVML_SUCCESS) continue;
    GpuInfo gpu;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {0};
    gpu.name = fn.deviceGetName(device, name, sizeof(name)) == NVML_SUCCESS ? name : "unknown GPU";
    nvmlPciInfo_t pci{};
    if (fn.deviceGetPciInfo(device, &pci) == NVML_SUCCESS) gpu.pciBusId = normalizePciBusId(pci.busId);
    machine.gpus.push_back(gpu);
    devices.push_back(device);
    busIds.push_back(gpu.pciBusId);
  }
  machine.resizeLinks();

  std::vector<bool> onSwitch(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) onSwitch[i] = reachesSwitch(fn, devices[i], busIds);
  for (size_t i = 0; i < devices.size(); ++i) {
    for (size_t j = i + 1; j < devices.size(); ++j) {
      nvmlGpuP2PStatus_t status = NVML_P2P_STATUS_UNKNOWN;
      const bool nvlink = fn.deviceGetP2PStatus(devices[i], devices[j], NVML_P2P_CAPS_INDEX_NVLINK,
                                                &status) == NVML_SUCCESS &&
                          status == NVML_P2P_STATUS_OK;
      GpuLink link;
      link.path = !nvlink ? GpuPath::kPcie
                          : (onSwitch[i] && onSwitch[j] ? GpuPath::kNvswitch : GpuPath::kNvlink);
      machine.setLink(int(i), int(j), link);
    }
  }
  return machine;
}

}  // namespace flashccl
