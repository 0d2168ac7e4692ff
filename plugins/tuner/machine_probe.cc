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
bool reachesSwitch(const NvmlFunctions& fn, nvml::Device device,
                   const std::vector<std::string>& gpuBusIds) {
  for (unsigned int link = 0; link < nvml::kMaxLinksProbed; ++link) {
    nvml::EnableState state = 0;
    const nvml::Return rc = fn.deviceGetNvLinkState(device, link, &state);
    if (rc == nvml::kErrorInvalidArgument) break;  // past the GPU's last link
    if (rc != nvml::kSuccess || state != nvml::kFeatureEnabled) continue;
    nvml::NvLinkDeviceType type = -1;
    if (fn.deviceGetNvLinkRemoteDeviceType != nullptr &&
        fn.deviceGetNvLinkRemoteDeviceType(device, link, &type) == nvml::kSuccess) {
      if (type == nvml::kNvLinkDeviceSwitch) return true;
      continue;
    }
    nvml::PciInfo remote{};
    if (fn.deviceGetNvLinkRemotePciInfo(device, link, &remote) == nvml::kSuccess &&
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
  const nvml::Return rc = fn.deviceGetCount(&count);
  if (rc != nvml::kSuccess) {
    *why = "NVML: nvmlDeviceGetCount_v2: " + session->errorText(rc);
    return machine;
  }
  machine.gpuSource = "NVML";
  std::vector<nvml::Device> devices;
  std::vector<std::string> busIds;
  for (unsigned int index = 0; index < count; ++index) {
    nvml::Device device = nullptr;
    // A GPU we may not query (another container's, or lost) is left out, as the library does.
    if (fn.deviceGetHandleByIndex(index, &device) != nvml::kSuccess) continue;
    GpuInfo gpu;
    char name[nvml::kDeviceNameBufferSize] = {0};
    gpu.name = fn.deviceGetName(device, name, sizeof(name)) == nvml::kSuccess ? name : "unknown GPU";
    nvml::PciInfo pci{};
    if (fn.deviceGetPciInfo(device, &pci) == nvml::kSuccess) gpu.pciBusId = normalizePciBusId(pci.busId);
    machine.gpus.push_back(gpu);
    devices.push_back(device);
    busIds.push_back(gpu.pciBusId);
  }
  machine.resizeLinks();

  std::vector<bool> onSwitch(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) onSwitch[i] = reachesSwitch(fn, devices[i], busIds);
  for (size_t i = 0; i < devices.size(); ++i) {
    for (size_t j = i + 1; j < devices.size(); ++j) {
      nvml::P2PStatus status = -1;
      const bool nvlink = fn.deviceGetP2PStatus(devices[i], devices[j], nvml::kP2PCapsNvlink,
                                                &status) == nvml::kSuccess &&
                          status == nvml::kP2PStatusOk;
      GpuLink link;
      link.path = !nvlink ? GpuPath::kPcie
                          : (onSwitch[i] && onSwitch[j] ? GpuPath::kNvswitch : GpuPath::kNvlink);
      machine.setLink(int(i), int(j), link);
    }
  }
  return machine;
}

}  // namespace flashccl
