#include "nic_inventory.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "sysfs_files.h"
#include "topo/host_layout.h"
#include "topo/topology.h"

namespace flashccl {
namespace doctor {

namespace {

// "4: ACTIVE" -> "ACTIVE".
std::string stateWord(const std::string& text) {
  const size_t colon = text.find(':');
  return trimmed(colon == std::string::npos ? text : text.substr(colon + 1));
}

bool zeroGid(const std::string& gid) {
  for (char c : gid) {
    if (c != '0' && c != ':' && !std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The PCI components of a device's sysfs path, root first: {"pci0000:17", "0000:17:01.0", ...}.
std::vector<std::string> pciChain(const std::string& sysRoot, const std::string& busId) {
  std::vector<std::string> chain;
  const std::string resolved = resolvePath(sysRoot + "/bus/pci/devices/" + busId);
  size_t start = 0;
  while (start < resolved.size()) {
    size_t slash = resolved.find('/', start);
    if (slash == std::string::npos) slash = resolved.size();
    const std::string part = resolved.substr(start, slash - start);
    if (part.compare(0, 3, "pci") == 0 || (!normalizePciBusId(part).empty() && part.find(':') != std::string::npos)) {
      chain.push_back(part);
    }
    start = slash + 1;
  }
  return chain;
}

}  // namespace

double parseRateGbps(const std::string& rateText) {
  return std::strtod(rateText.c_str(), nullptr);
}

NicInventory readNicInventory(const std::string& sysRoot) {
  NicInventory nics;
  nics.interfaces = listDirectory(sysRoot + "/class/net");
  // Where each RDMA device sits (PCI address, NUMA node), as topology detection reads it.
  HostLayout layout;
  std::string why;
  readHostLayoutFromSysfs(sysRoot, &layout, &why);
  const std::string rdmaRoot = sysRoot + "/class/infiniband";
  for (const Nic& nic : layout.nics) {
    if (nic.kind != Nic::Kind::kRdma) continue;
    nics.rdmaDevices.push_back(nic.name);
    const std::string deviceDir = rdmaRoot + "/" + nic.name;
    for (const std::string& portName : listDirectory(deviceDir + "/ports")) {
      RdmaPort port;
      port.device = nic.name;
      port.port = std::atoi(portName.c_str());
      const std::string dir = deviceDir + "/ports/" + portName;
      std::string text;
      if (readFirstLine(dir + "/state", &text)) port.state = stateWord(text);
      if (readFirstLine(dir + "/phys_state", &text)) port.physState = stateWord(text);
      if (readFirstLine(dir + "/rate", &text)) {
        port.rateText = trimmed(text);
        port.rateGbps = parseRateGbps(port.rateText);
      }
      if (readFirstLine(dir + "/link_layer", &text)) port.linkLayer = trimmed(text);
      for (const std::string& index : listDirectory(dir + "/gid_attrs/types")) {
        std::string gid, type;
        if (!readFirstLine(dir + "/gids/" + index, &gid) || zeroGid(gid)) continue;
        if (readFirstLine(dir + "/gid_attrs/types/" + index, &type)) port.gidTypes.push_back(trimmed(type));
      }
      port.pciBusId = nic.pciBusId;
      port.numaNode = nic.numaNode;
      nics.rdmaPorts.push_back(port);
    }
  }
  return nics;
}

std::vector<PortTraffic> readPortTraffic(const std::string& sysRoot, const NicInventory& nics) {
  std::vector<PortTraffic> traffic;
  for (const RdmaPort& port : nics.rdmaPorts) {
    const std::string dir = sysRoot + "/class/infiniband/" + port.device + "/ports/" +
                            std::to_string(port.port) + "/counters/";
    uint64_t xmit = 0, rcv = 0;
    if (!readNumber(dir + "port_xmit_data", &xmit) || !readNumber(dir + "port_rcv_data", &rcv)) continue;
    traffic.push_back(PortTraffic{port.name(), xmit * 4, rcv * 4});
  }
  return traffic;
}

std::string pciDistance(const std::string& sysRoot, const std::string& a, int numaA,
                        const std::string& b, int numaB) {
  const std::vector<std::string> chainA = pciChain(sysRoot, a), chainB = pciChain(sysRoot, b);
  if (chainA.empty() || chainB.empty()) {
    if (numaA >= 0 && numaB >= 0) return numaA == numaB ? "NODE" : "SYS";
    return "?";
  }
  size_t common = 0;
  while (common < chainA.size() && common < chainB.size() && chainA[common] == chainB[common]) ++common;
  // chain[0] is the host bridge ("pci0000:17"), chain[1] the root port (or, without one, the
  // device itself). A root port links to one device, so two devices that share it sit below
  // the same switch or bridge.
  if (common >= 2) return "PIX/PXB";
  if (common >= 1) return "PHB";
  if (numaA >= 0 && numaB >= 0) return numaA == numaB ? "NODE" : "SYS";
  return "?";
}

int pciDistanceRank(const std::string& distance) {
  if (distance == "PIX/PXB") return 0;
  if (distance == "PHB") return 1;
  if (distance == "NODE") return 2;
  if (distance == "SYS") return 3;
  return 4;
}

}  // namespace doctor
}  // namespace flashccl
