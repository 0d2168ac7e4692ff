#include "topo/topology_detect.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <memory>

#include "topo/host_layout.h"
#include "topo/nvml_loader.h"

namespace flashccl {

namespace {

std::string cudaErrorText(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

// GPUs the CUDA runtime shows this process (CUDA_VISIBLE_DEVICES applies).
std::vector<GpuInfo> listCudaGpus(Topology* topology) {
  std::vector<GpuInfo> gpus;
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();  // do not leave our error behind for the next CUDA call
    topology->notes.push_back("CUDA runtime: " + cudaErrorText(error) + "; no GPU visible to CUDA");
    return gpus;
  }
  for (int device = 0; device < count; ++device) {
    GpuInfo gpu;
    gpu.cudaDevice = device;
    cudaDeviceProp prop;
    error = cudaGetDeviceProperties(&prop, device);
    if (error != cudaSuccess) {
      cudaGetLastError();
      topology->notes.push_back("CUDA runtime: device " + std::to_string(device) + ": " +
                                cudaErrorText(error));
      gpu.name = "unknown GPU";
    } else {
      gpu.name = prop.name;
      gpu.computeMajor = prop.major;
      gpu.computeMinor = prop.minor;
      gpu.memoryBytes = prop.totalGlobalMem;
    }
    char busId[64] = {0};
    if (cudaDeviceGetPCIBusId(busId, sizeof(busId), device) == cudaSuccess) {
      gpu.pciBusId = normalizePciBusId(busId);
    } else {
      cudaGetLastError();
    }
    gpus.push_back(gpu);
  }
  return gpus;
}

// Per GPU as NVML numbers them.
struct NvmlGpu {
  nvmlDevice_t handle = nullptr;
  GpuInfo info;
};

std::vector<NvmlGpu> listNvmlGpus(const NvmlSession& nvmlSession, Topology* topology) {
  const NvmlFunctions& fn = nvmlSession.fn();
  std::vector<NvmlGpu> gpus;
  unsigned int count = 0;
  nvmlReturn_t rc = fn.deviceGetCount(&count);
  if (rc != NVML_SUCCESS) {
    topology->notes.push_back("NVML: nvmlDeviceGetCount_v2: " + nvmlSession.errorText(rc));
    return gpus;
  }
  for (unsigned int index = 0; index < count; ++index) {
    NvmlGpu gpu;
    rc = fn.deviceGetHandleByIndex(index, &gpu.handle);
    if (rc != NVML_SUCCESS) {
      // A GPU we may not query (another container's, or lost): skip it, keep the others.
      topology->notes.push_back("NVML: GPU " + std::to_string(index) + ": " +
                                nvmlSession.errorText(rc));
      continue;
    }
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {0};
    gpu.info.name = fn.deviceGetName(gpu.handle, name, sizeof(name)) == NVML_SUCCESS
                        ? name : "unknown GPU";
    nvmlPciInfo_t pci{};
    if (fn.deviceGetPciInfo(gpu.handle, &pci) == NVML_SUCCESS) {
      gpu.info.pciBusId = normalizePciBusId(pci.busId);
    }
    if (fn.deviceGetCudaComputeCapability != nullptr) {
      fn.deviceGetCudaComputeCapability(gpu.handle, &gpu.info.computeMajor, &gpu.info.computeMinor);
    }
    gpus.push_back(gpu);
  }
  return gpus;
}

PcieDistance pcieDistanceFromNvml(nvmlGpuTopologyLevel_t level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL: return PcieDistance::kSameBoard;
    case NVML_TOPOLOGY_SINGLE: return PcieDistance::kPix;
    case NVML_TOPOLOGY_MULTIPLE: return PcieDistance::kPxb;
    case NVML_TOPOLOGY_HOSTBRIDGE: return PcieDistance::kPhb;
    case NVML_TOPOLOGY_NODE: return PcieDistance::kNode;
    case NVML_TOPOLOGY_SYSTEM: return PcieDistance::kSys;
    default: return PcieDistance::kUnknown;
  }
}

// Paths between the first nvmlGpus.size() GPUs of `topology` (which are NVML's, in its order),
// from each GPU's NVLink links: a link to another GPU counts towards that pair; a link to an
// NVSwitch counts towards every pair of GPUs that both reach switches (HGX boards wire every GPU
// to every switch, so any pair can use all of the smaller side's links). This is the rule
// PyTorch's NVLink detector and NCCL's topology code follow.
void nvmlLinks(const NvmlSession& nvmlSession, const std::vector<NvmlGpu>& nvmlGpus,
               Topology* topology) {
  const NvmlFunctions& fn = nvmlSession.fn();
  const size_t n = nvmlGpus.size();
  std::map<std::string, size_t> indexByBusId;
  for (size_t i = 0; i < n; ++i) indexByBusId[nvmlGpus[i].info.pciBusId] = i;

  std::vector<std::vector<int>> direct(n, std::vector<int>(n, 0));
  std::vector<int> switchLinks(n, 0);
  bool guessedRemoteType = false;
  for (size_t i = 0; i < n; ++i) {
    for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
      nvmlEnableState_t state = NVML_FEATURE_DISABLED;
      const nvmlReturn_t rc = fn.deviceGetNvLinkState(nvmlGpus[i].handle, link, &state);
      if (rc == NVML_ERROR_INVALID_ARGUMENT) break;  // past the GPU's last link
      if (rc != NVML_SUCCESS || state != NVML_FEATURE_ENABLED) continue;
      nvmlPciInfo_t remote{};
      const bool haveRemotePci =
          fn.deviceGetNvLinkRemotePciInfo(nvmlGpus[i].handle, link, &remote) == NVML_SUCCESS;
      const auto peer = haveRemotePci ? indexByBusId.find(normalizePciBusId(remote.busId))
                                      : indexByBusId.end();
      nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
      if (fn.deviceGetNvLinkRemoteDeviceType != nullptr &&
          fn.deviceGetNvLinkRemoteDeviceType(nvmlGpus[i].handle, link, &type) == NVML_SUCCESS) {
        if (type == NVML_NVLINK_DEVICE_TYPE_GPU) {
          if (peer != indexByBusId.end() && peer->second != i) ++direct[i][peer->second];
        } else if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
          ++switchLinks[i];
        }
        continue;
      }
      // Older NVML: a remote end that is one of our GPUs is a GPU; anything else is taken for
      // a switch port (the only other NVLink endpoint on x86 servers).
      guessedRemoteType = true;
      if (peer != indexByBusId.end()) {
        if (peer->second != i) ++direct[i][peer->second];
      } else {
        ++switchLinks[i];
      }
    }
  }
  if (guessedRemoteType) {
    topology->notes.push_back("NVML has no nvmlDeviceGetNvLinkRemoteDeviceType: NVLink ends that "
                              "are not one of our GPUs were taken for NVSwitch ports");
  }

  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      GpuLink link;
      // Both ends should count the same links; if one side's remote query failed, trust the other.
      const int pairLinks = std::max(direct[i][j], direct[j][i]);
      if (pairLinks > 0) {
        link.path = GpuPath::kNvlink;
        link.nvlinks = pairLinks;
      } else if (switchLinks[i] > 0 && switchLinks[j] > 0) {
        link.path = GpuPath::kNvswitch;
        link.nvlinks = std::min(switchLinks[i], switchLinks[j]);
      } else {
        nvmlGpuP2PStatus_t status = NVML_P2P_STATUS_UNKNOWN;
        const bool nvlinkP2p =
            fn.deviceGetP2PStatus(nvmlGpus[i].handle, nvmlGpus[j].handle, NVML_P2P_CAPS_INDEX_NVLINK,
                                  &status) == NVML_SUCCESS && status == NVML_P2P_STATUS_OK;
        // NVML says NVLink P2P works but showed no link to count (e.g. a VM hiding link
        // details): NVLink of unknown width.
        link.path = nvlinkP2p ? GpuPath::kNvlink : GpuPath::kPcie;
      }
      nvmlGpuTopologyLevel_t level = NVML_TOPOLOGY_SYSTEM;  // read only on NVML_SUCCESS
      if (fn.deviceGetTopologyCommonAncestor(nvmlGpus[i].handle, nvmlGpus[j].handle, &level) ==
          NVML_SUCCESS) {
        link.pcie = pcieDistanceFromNvml(level);
      }
      nvmlGpuP2PStatus_t readStatus = NVML_P2P_STATUS_UNKNOWN;
      link.peerAccess = fn.deviceGetP2PStatus(nvmlGpus[i].handle, nvmlGpus[j].handle,
                                              NVML_P2P_CAPS_INDEX_READ, &readStatus) == NVML_SUCCESS &&
                        readStatus == NVML_P2P_STATUS_OK;
      topology->setLink(int(i), int(j), link);
    }
  }
}

// Paths between CUDA-visible GPUs that NVML could not describe. The runtime cannot name the link
// type; native peer atomics are the tell: NVLink carries them, PCIe peer traffic does not (the
// CUDA programming guide lists peer atomics as an NVLink feature).
void cudaLinks(Topology* topology, bool* inferred) {
  const size_t n = topology->gpus.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (topology->links[i][j].path != GpuPath::kUnknown) continue;
      const int a = topology->gpus[i].cudaDevice, b = topology->gpus[j].cudaDevice;
      if (a < 0 || b < 0) continue;
      int access = 0, atomics = 0;
      if (cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, a, b) != cudaSuccess ||
          cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, a, b) !=
              cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      GpuLink link;
      link.peerAccess = access != 0;
      link.path = access && atomics ? GpuPath::kNvlink : GpuPath::kPcie;
      topology->setLink(int(i), int(j), link);
      *inferred = true;
    }
  }
}

// The CUDA fallback cannot tell NVSwitch from direct NVLink. More than four GPUs that all reach
// each other over NVLink must be on a switch: no product bridges more than four GPUs all-to-all
// (H100/H200 NVL bridges join 2 or 4; DGX-1's 8-GPU mesh is not all-to-all).
void inferNvswitch(Topology* topology) {
  const size_t n = topology->gpus.size();
  if (n <= 4) return;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (topology->links[i][j].path != GpuPath::kNvlink || topology->links[i][j].nvlinks != 0)
        return;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      GpuLink link = topology->links[i][j];
      link.path = GpuPath::kNvswitch;
      topology->setLink(int(i), int(j), link);
    }
  }
  topology->notes.push_back("more than 4 GPUs all joined by NVLink: taken to be NVSwitch");
}

}  // namespace

Topology detectTopology(const DetectOptions& options) {
  Topology topology;
  std::vector<GpuInfo> cudaGpus;
  if (options.useCuda) cudaGpus = listCudaGpus(&topology);

  // NVML sees every GPU of the machine whatever CUDA_VISIBLE_DEVICES says, which is what machine
  // matching needs (a job that shows each rank one GPU still runs on an 8-GPU board).
  std::unique_ptr<NvmlSession> nvmlSession;
  std::vector<NvmlGpu> nvmlGpus;
  if (!options.nvmlLibrary.empty()) {
    std::string error;
    nvmlSession = NvmlSession::open(options.nvmlLibrary, &error);
    if (nvmlSession == nullptr) {
      topology.notes.push_back("NVML: " + error + "; NVLink/NVSwitch details unknown");
    } else {
      nvmlGpus = listNvmlGpus(*nvmlSession, &topology);
    }
  }

  if (!nvmlGpus.empty()) {
    topology.gpuSource = "NVML";
    for (NvmlGpu& nvmlGpu : nvmlGpus) {
      auto visible = std::find_if(cudaGpus.begin(), cudaGpus.end(), [&](const GpuInfo& gpu) {
        return !gpu.pciBusId.empty() && gpu.pciBusId == nvmlGpu.info.pciBusId;
      });
      if (visible != cudaGpus.end()) {
        nvmlGpu.info.cudaDevice = visible->cudaDevice;
        nvmlGpu.info.memoryBytes = visible->memoryBytes;
        if (nvmlGpu.info.computeMajor == 0) {
          nvmlGpu.info.computeMajor = visible->computeMajor;
          nvmlGpu.info.computeMinor = visible->computeMinor;
        }
        cudaGpus.erase(visible);
      }
      topology.gpus.push_back(nvmlGpu.info);
    }
    if (!cudaGpus.empty()) {
      topology.notes.push_back(std::to_string(cudaGpus.size()) +
                               " CUDA device(s) not found in NVML by PCI address (MIG or a "
                               "container mapping?); listed after NVML's");
      topology.gpus.insert(topology.gpus.end(), cudaGpus.begin(), cudaGpus.end());
    }
  } else {
    topology.gpuSource = cudaGpus.empty() ? "none" : "CUDA runtime";
    topology.gpus = cudaGpus;
  }
  topology.resizeLinks();

  if (!nvmlGpus.empty()) nvmlLinks(*nvmlSession, nvmlGpus, &topology);
  bool inferredFromCuda = false;
  if (options.useCuda) cudaLinks(&topology, &inferredFromCuda);
  if (inferredFromCuda) {
    topology.notes.push_back("GPU paths without NVML: NVLink inferred from native peer atomics "
                             "(link counts unknown)");
    inferNvswitch(&topology);
  }
  // Whatever NVML did not cover keeps the peer access bit the runtime reports.
  if (options.useCuda) {
    for (size_t i = 0; i < topology.gpus.size(); ++i) {
      for (size_t j = i + 1; j < topology.gpus.size(); ++j) {
        const int a = topology.gpus[i].cudaDevice, b = topology.gpus[j].cudaDevice;
        if (a < 0 || b < 0 || topology.links[i][j].peerAccess) continue;
        int can = 0;
        if (cudaDeviceCanAccessPeer(&can, a, b) == cudaSuccess && can) {
          GpuLink link = topology.links[i][j];
          link.peerAccess = true;
          topology.setLink(int(i), int(j), link);
        } else {
          cudaGetLastError();
        }
      }
    }
  }
  nvmlSession.reset();  // nvmlShutdown: we hold no NVML state past detection

  for (GpuInfo& gpu : topology.gpus) gpu.numaNode = pciNumaNode(options.sysRoot, gpu.pciBusId);

  HostLayout host;
  std::string hwlocWhy;
  bool haveHost = false;
  if (!options.hwlocLibrary.empty()) {
    haveHost = readHostLayoutWithHwloc(options.hwlocLibrary, &host, &hwlocWhy);
    if (!haveHost) topology.notes.push_back("hwloc: " + hwlocWhy + "; using sysfs");
  }
  if (!haveHost) {
    std::string sysfsWhy;
    haveHost = readHostLayoutFromSysfs(options.sysRoot, &host, &sysfsWhy);
    if (!haveHost) topology.notes.push_back("sysfs: " + sysfsWhy + "; NUMA nodes and NICs unknown");
  }
  if (haveHost) {
    topology.numaNodes = host.numaNodes;
    topology.nics = host.nics;
    topology.hostSource = host.source;
  } else {
    topology.hostSource = "none";
  }
  return topology;
}

const Topology& localTopology() {
  // Function-local static: initialised once, and concurrent first callers wait for it (C++11).
  static const Topology topology = detectTopology();
  return topology;
}

}  // namespace flashccl
