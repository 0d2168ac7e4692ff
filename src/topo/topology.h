// What this machine is: its GPUs, how each pair of GPUs is connected, its NUMA nodes and NICs.
//
// Filled by detectTopology() (topology_detect.h) or, in tests and `flashccl plan`, by hand; matched
// against the machine types described in topologies/*.xml (machine_match.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace flashccl {

// How two GPUs reach each other.
enum class GpuPath : int {
  kUnknown = 0,
  kPcie = 1,      // PCIe (possibly through the CPU), no NVLink between them
  kNvlink = 2,    // direct NVLink links between the two GPUs (bridges, DGX-1 style meshes)
  kNvswitch = 3,  // NVLink through NVSwitch (HGX boards): every pair gets the GPU's full link count
};

// PCIe distance between two GPUs, in nvidia-smi `topo -m` terms (NVML common ancestor).
enum class PcieDistance : int {
  kUnknown = 0,
  kSameBoard = 1,  // one multi-GPU card
  kPix = 2,        // one PCIe switch
  kPxb = 3,        // several PCIe switches, no host bridge
  kPhb = 4,        // through a host bridge (the CPU)
  kNode = 5,       // through the interconnect between host bridges of one NUMA node
  kSys = 6,        // across NUMA nodes (SMP interconnect)
};

// The interconnect of the machine as a whole: the one a collective over all its GPUs sees.
enum class Interconnect : int {
  kNone = 0,          // fewer than two GPUs
  kUnknown = 1,       // some pair's path could not be determined
  kPcie = 2,          // at least one pair talks over PCIe only
  kNvlinkDirect = 3,  // every pair has direct NVLink links
  kNvswitch = 4,      // every pair has NVLink, through NVSwitch
};

const char* gpuPathName(GpuPath path);              // "unknown", "pcie", "nvlink", "nvswitch"
const char* pcieDistanceName(PcieDistance distance);  // "?", "board", "PIX", ..., "SYS"
const char* interconnectName(Interconnect interconnect);  // "none", "unknown", "pcie", ...
// Parses the names interconnectName() gives ("nvswitch", "nvlink-direct", "pcie", ...).
bool parseInterconnect(const std::string& text, Interconnect* interconnect);

struct GpuInfo {
  std::string name;       // marketing name as CUDA and NVML report it: "NVIDIA H200"
  std::string pciBusId;   // "0000:18:00.0" (lower case, 4-digit domain, as in sysfs); "" = unknown
  int cudaDevice = -1;    // index in this process's CUDA numbering; -1 = not visible to CUDA here
  int computeMajor = 0;   // 0 = unknown
  int computeMinor = 0;
  size_t memoryBytes = 0;  // 0 = unknown
  int numaNode = -1;       // -1 = unknown or not a NUMA machine
};

struct GpuLink {
  GpuPath path = GpuPath::kUnknown;
  int nvlinks = 0;  // NVLink links the pair can use; for kNvswitch the smaller of the two GPUs'
                    // switch links; 0 = none or unknown
  PcieDistance pcie = PcieDistance::kUnknown;
  bool peerAccess = false;  // the driver reports peer-to-peer access between the pair
};

struct NumaNode {
  int id = -1;
  std::string cpus;        // "0-55,112-167"
  size_t memoryBytes = 0;  // 0 = unknown
};

struct Nic {
  enum class Kind : int { kEthernet = 0, kRdma = 1 };  // kRdma: InfiniBand / RoCE verbs device
  Kind kind = Kind::kEthernet;
  std::string name;      // "eth0", "mlx5_0"
  std::string pciBusId;  // "" for a virtual interface we could not place
  int numaNode = -1;
};

struct Topology {
  std::vector<GpuInfo> gpus;
  // links[i][j] for i != j, symmetric; links[i][i] is unused. Same size as gpus.
  std::vector<std::vector<GpuLink>> links;
  std::vector<NumaNode> numaNodes;
  std::vector<Nic> nics;
  std::string gpuSource;  // where the GPU list came from: "NVML", "CUDA runtime" or "none"
  std::string hostSource;  // where NUMA nodes and NICs came from: "hwloc 2.9.0", "sysfs", "none"
  // What detection could not find out, and why: one line each (shown by describe(), logged at
  // INFO). Empty when everything worked.
  std::vector<std::string> notes;

  // Resizes `links` to gpus.size() x gpus.size(), keeping what is there.
  void resizeLinks();
  // Sets links[i][j] and links[j][i].
  void setLink(int i, int j, const GpuLink& link);

  Interconnect interconnect() const;
  // "2 x NVIDIA H200, nvswitch (18 NVLinks per pair)" / "no GPU" / "8 x NVIDIA L40S, pcie".
  std::string summary() const;
  // Several lines: GPUs, the link matrix in nvidia-smi style, NUMA nodes, NICs, notes.
  std::string describe() const;
};

// "00000000:18:00.0", "0000:18:00.0", "18:00.0" -> "0000:18:00.0". "" when `text` is not a PCI
// address.
std::string normalizePciBusId(const std::string& text);

}  // namespace flashccl
