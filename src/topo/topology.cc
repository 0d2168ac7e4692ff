#include "topo/topology.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace flashccl {

const char* gpuPathName(GpuPath path) {
  switch (path) {
    case GpuPath::kUnknown: return "unknown";
    case GpuPath::kPcie: return "pcie";
    case GpuPath::kNvlink: return "nvlink";
    case GpuPath::kNvswitch: return "nvswitch";
  }
  return "unknown";
}

const char* pcieDistanceName(PcieDistance distance) {
  switch (distance) {
    case PcieDistance::kUnknown: return "?";
    case PcieDistance::kSameBoard: return "BOARD";
    case PcieDistance::kPix: return "PIX";
    case PcieDistance::kPxb: return "PXB";
    case PcieDistance::kPhb: return "PHB";
    case PcieDistance::kNode: return "NODE";
    case PcieDistance::kSys: return "SYS";
  }
  return "?";
}

const char* interconnectName(Interconnect interconnect) {
  switch (interconnect) {
    case Interconnect::kNone: return "none";
    case Interconnect::kUnknown: return "unknown";
    case Interconnect::kPcie: return "pcie";
    case Interconnect::kNvlinkDirect: return "nvlink-direct";
    case Interconnect::kNvswitch: return "nvswitch";
  }
  return "unknown";
}

bool parseInterconnect(const std::string& text, Interconnect* interconnect) {
  for (Interconnect candidate : {Interconnect::kNone, Interconnect::kUnknown, Interconnect::kPcie,
                                 Interconnect::kNvlinkDirect, Interconnect::kNvswitch}) {
    if (text == interconnectName(candidate)) {
      *interconnect = candidate;
      return true;
    }
  }
  return false;
}

void Topology::resizeLinks() {
  const size_t n = gpus.size();
  links.resize(n);
  for (std::vector<GpuLink>& row : links) row.resize(n);
}

void Topology::setLink(int i, int j, const GpuLink& link) {
  resizeLinks();
  links[i][j] = link;
  links[j][i] = link;
}

Interconnect Topology::interconnect() const {
  const size_t n = gpus.size();
  if (n < 2) return Interconnect::kNone;
  if (links.size() != n) return Interconnect::kUnknown;
  bool anySwitch = false;
  // The weakest pair decides: an algorithm over all GPUs runs at the speed of its slowest path.
  Interconnect result = Interconnect::kNvlinkDirect;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      switch (links[i][j].path) {
        case GpuPath::kUnknown: return Interconnect::kUnknown;
        case GpuPath::kPcie: result = Interconnect::kPcie; break;
        case GpuPath::kNvswitch: anySwitch = true; break;
        case GpuPath::kNvlink: break;
      }
    }
  }
  if (result == Interconnect::kPcie) return result;
  return anySwitch ? Interconnect::kNvswitch : Interconnect::kNvlinkDirect;
}

namespace {

std::string formatBytes(size_t bytes) {
  char text[32];
  if (bytes >= (size_t(1) << 30)) {
    std::snprintf(text, sizeof(text), "%.0f GiB", double(bytes) / double(size_t(1) << 30));
  } else {
    std::snprintf(text, sizeof(text), "%.0f MiB", double(bytes) / double(size_t(1) << 20));
  }
  return text;
}

// One cell of the link matrix, in nvidia-smi's vocabulary where it has one.
std::string linkCell(const GpuLink& link) {
  const std::string count = link.nvlinks > 0 ? std::to_string(link.nvlinks) : "?";
  switch (link.path) {
    case GpuPath::kNvlink: return "NV" + count;
    case GpuPath::kNvswitch: return "SW" + count;
    case GpuPath::kPcie:
      return link.pcie == PcieDistance::kUnknown ? "PCIe" : pcieDistanceName(link.pcie);
    case GpuPath::kUnknown: return "?";
  }
  return "?";
}

// The link count every pair shares, or 0 when pairs differ or it is unknown.
int commonNvlinkCount(const Topology& topology) {
  int common = -1;
  for (size_t i = 0; i < topology.gpus.size(); ++i) {
    for (size_t j = i + 1; j < topology.gpus.size(); ++j) {
      const int count = topology.links[i][j].nvlinks;
      if (common == -1) common = count;
      else if (common != count) return 0;
    }
  }
  return common > 0 ? common : 0;
}

}  // namespace

std::string Topology::summary() const {
  if (gpus.empty()) return "no GPU";
  std::ostringstream out;
  bool sameModel = std::all_of(gpus.begin(), gpus.end(),
                               [&](const GpuInfo& gpu) { return gpu.name == gpus[0].name; });
  out << gpus.size() << " x " << (sameModel ? gpus[0].name : std::string("mixed GPUs"));
  const Interconnect kind = interconnect();
  if (kind == Interconnect::kNone) return out.str();
  out << ", " << interconnectName(kind);
  if (kind == Interconnect::kNvswitch || kind == Interconnect::kNvlinkDirect) {
    const int count = commonNvlinkCount(*this);
    if (count > 0) out << " (" << count << " NVLinks per pair)";
  }
  return out.str();
}

std::string Topology::describe() const {
  std::ostringstream out;
  out << "GPUs (" << (gpuSource.empty() ? "none" : gpuSource) << "): " << gpus.size() << "\n";
  for (size_t i = 0; i < gpus.size(); ++i) {
    const GpuInfo& gpu = gpus[i];
    out << "  GPU" << i << "  " << gpu.name;
    if (!gpu.pciBusId.empty()) out << "  " << gpu.pciBusId;
    if (gpu.computeMajor > 0) out << "  sm_" << gpu.computeMajor << gpu.computeMinor;
    if (gpu.memoryBytes > 0) out << "  " << formatBytes(gpu.memoryBytes);
    if (gpu.numaNode >= 0) out << "  NUMA " << gpu.numaNode;
    if (gpu.cudaDevice >= 0) out << "  cuda:" << gpu.cudaDevice;
    else out << "  (not visible to CUDA in this process)";
    out << "\n";
  }
  if (gpus.size() >= 2 && links.size() == gpus.size()) {
    char cell[16];
    out << "links:\n      ";
    for (size_t j = 0; j < gpus.size(); ++j) {
      std::snprintf(cell, sizeof(cell), "%7s", ("GPU" + std::to_string(j)).c_str());
      out << cell;
    }
    out << "\n";
    for (size_t i = 0; i < gpus.size(); ++i) {
      std::snprintf(cell, sizeof(cell), "  %-4s", ("GPU" + std::to_string(i)).c_str());
      out << cell;
      for (size_t j = 0; j < gpus.size(); ++j) {
        std::snprintf(cell, sizeof(cell), "%7s", i == j ? "X" : linkCell(links[i][j]).c_str());
        out << cell;
      }
      out << "\n";
    }
    out << "  (NVn: n direct NVLinks; SWn: n NVLinks through NVSwitch; PIX/PXB/PHB/NODE/SYS: "
           "PCIe only, as in nvidia-smi topo -m; ?: unknown)\n";
  }
  out << "interconnect: " << interconnectName(interconnect()) << "\n";
  out << "NUMA nodes (" << (hostSource.empty() ? "none" : hostSource) << "): " << numaNodes.size()
      << "\n";
  for (const NumaNode& node : numaNodes) {
    out << "  node" << node.id;
    if (!node.cpus.empty()) out << "  cpus " << node.cpus;
    if (node.memoryBytes > 0) out << "  " << formatBytes(node.memoryBytes);
    out << "\n";
  }
  out << "NICs: " << nics.size() << "\n";
  for (const Nic& nic : nics) {
    out << "  " << nic.name << "  " << (nic.kind == Nic::Kind::kRdma ? "rdma" : "ethernet");
    if (!nic.pciBusId.empty()) out << "  " << nic.pciBusId;
    if (nic.numaNode >= 0) out << "  NUMA " << nic.numaNode;
    out << "\n";
  }
  if (!notes.empty()) {
    out << "notes:\n";
    for (const std::string& note : notes) out << "  " << note << "\n";
  }
  return out.str();
}

std::string normalizePciBusId(const std::string& text) {
  // Hex digits, ':' and '.' only (sscanf's %x would also take "0x" prefixes and signs).
  if (text.empty() || text.find_first_not_of("0123456789abcdefABCDEF:.") != std::string::npos) {
    return "";
  }
  unsigned int domain = 0, bus = 0, device = 0, function = 0;
  int used = 0;
  const int length = int(text.size());
  // Domain is optional; NVML writes it with 8 digits, CUDA and sysfs with 4.
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x%n", &domain, &bus, &device, &function, &used) == 4 &&
      used == length) {
  } else if (std::sscanf(text.c_str(), "%x:%x.%x%n", &bus, &device, &function, &used) == 3 &&
             used == length) {
    domain = 0;
  } else {
    return "";
  }
  if (domain > 0xffff || bus > 0xff || device > 0x1f || function > 7) return "";
  char out[32];
  std::snprintf(out, sizeof(out), "%04x:%02x:%02x.%x", domain, bus, device, function);
  return out;
}

}  // namespace flashccl
