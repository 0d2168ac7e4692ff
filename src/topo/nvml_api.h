// The small part of NVML's C ABI that topology detection uses, declared here instead of taken
// from nvml.h.
//
// Why not nvml.h: it ships in a separate package (cuda-nvml-dev) that build machines often lack,
// and we never link NVML anyway (docs/design.md, "Few dependencies": it is dlopen'ed at run time). NCCL does the same
// (src/include/nvmlwrap.h). The values below are NVML's published ABI, stable since NVML 10;
// each is the one in nvml.h of CUDA 12/13 (cross-checked against several public copies).
#pragma once

namespace flashccl {
namespace nvml {

using Return = int;  // nvmlReturn_t
constexpr Return kSuccess = 0;                // NVML_SUCCESS
constexpr Return kErrorInvalidArgument = 2;   // NVML_ERROR_INVALID_ARGUMENT
constexpr Return kErrorNotSupported = 3;      // NVML_ERROR_NOT_SUPPORTED

struct DeviceOpaque;
using Device = DeviceOpaque*;  // nvmlDevice_t

// nvmlPciInfo_t (the layout used by nvmlDeviceGetPciInfo_v3 and ..._NvLinkRemotePciInfo_v2).
struct PciInfo {
  char busIdLegacy[16];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, "00000000:18:00.0"
};

using EnableState = int;  // nvmlEnableState_t
constexpr EnableState kFeatureEnabled = 1;

using NvLinkDeviceType = int;  // nvmlIntNvLinkDeviceType_t
constexpr NvLinkDeviceType kNvLinkDeviceGpu = 0;
constexpr NvLinkDeviceType kNvLinkDeviceIbmNpu = 1;
constexpr NvLinkDeviceType kNvLinkDeviceSwitch = 2;

using P2PCapsIndex = int;  // nvmlGpuP2PCapsIndex_t
constexpr P2PCapsIndex kP2PCapsRead = 0;
constexpr P2PCapsIndex kP2PCapsNvlink = 2;

using P2PStatus = int;  // nvmlGpuP2PStatus_t
constexpr P2PStatus kP2PStatusOk = 0;

using TopologyLevel = int;  // nvmlGpuTopologyLevel_t
constexpr TopologyLevel kTopologyInternal = 0;     // same board (multi-GPU card)
constexpr TopologyLevel kTopologySingle = 10;      // one PCIe switch       (nvidia-smi: PIX)
constexpr TopologyLevel kTopologyMultiple = 20;    // several PCIe switches (PXB)
constexpr TopologyLevel kTopologyHostBridge = 30;  // a host bridge         (PHB)
constexpr TopologyLevel kTopologyNode = 40;        // one NUMA node         (NODE)
constexpr TopologyLevel kTopologySystem = 50;      // across NUMA nodes     (SYS)

// NVLink link indices are probed until NVML says the index is invalid. NVML_NVLINK_MAX_LINKS is
// 18 today (Hopper, Blackwell); 32 leaves room for a larger future value without a rebuild.
constexpr unsigned int kMaxLinksProbed = 32;

constexpr unsigned int kDeviceNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE

}  // namespace nvml
}  // namespace flashccl
