// Host layout from sysfs. The same files NCCL reads (src/graph/topo.cc, xml.cc), so what we see
// is what NCCL sees.
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/text_files.h"
#include "topo/host_layout.h"

namespace flashccl {

namespace {

int readInt(const std::string& path, int fallback) {
  std::string line;
  if (!readFirstLine(path, &line)) return fallback;
  try {
    return std::stoi(line);
  } catch (...) {
    return fallback;
  }
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The PCI address a class device (net/eth0, infiniband/mlx5_0) hangs off: the last path component
// of its resolved `device` link that is a PCI address (virtio NICs sit one level below theirs).
std::string pciAddressOfClassDevice(const std::string& classDevice) {
  char resolved[PATH_MAX];
  if (realpath((classDevice + "/device").c_str(), resolved) == nullptr) return "";
  std::string path = resolved;
  for (int level = 0; level < 2 && !path.empty(); ++level) {
    const size_t slash = path.rfind('/');
    const std::string component = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::string address = normalizePciBusId(component);
    // normalizePciBusId also takes "bus:dev.fn" forms; a sysfs PCI directory always has the domain.
    if (!address.empty() && std::count(component.begin(), component.end(), ':') == 2) return address;
    if (slash == std::string::npos) break;
    path.resize(slash);
  }
  return "";
}

size_t nodeMemoryBytes(const std::string& nodeDir) {
  std::ifstream in(nodeDir + "/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    // "Node 0 MemTotal:       527813784 kB"
    const size_t at = line.find("MemTotal:");
    if (at == std::string::npos) continue;
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str() + at + 9, "%llu", &kib) == 1) return size_t(kib) * 1024;
  }
  return 0;
}

}  // namespace

int pciNumaNode(const std::string& sysRoot, const std::string& pciBusId) {
  if (pciBusId.empty()) return -1;
  return readInt(sysRoot + "/bus/pci/devices/" + pciBusId + "/numa_node", -1);
}

bool readHostLayoutFromSysfs(const std::string& sysRoot, HostLayout* layout, std::string* why) {
  layout->numaNodes.clear();
  layout->nics.clear();
  layout->source = "sysfs";

  const std::string nodeRoot = sysRoot + "/devices/system/node";
  for (const std::string& name : listDirectory(nodeRoot)) {
    int id = -1;
    char tail = 0;
    if (std::sscanf(name.c_str(), "node%d%c", &id, &tail) != 1) continue;
    NumaNode node;
    node.id = id;
    readFirstLine(nodeRoot + "/" + name + "/cpulist", &node.cpus);
    node.memoryBytes = nodeMemoryBytes(nodeRoot + "/" + name);
    layout->numaNodes.push_back(node);
  }
  std::sort(layout->numaNodes.begin(), layout->numaNodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });

  // Only interfaces backed by a device: lo, bridges, veth and docker0 have no `device` link and
  // cannot carry collective traffic between hosts.
  const std::string netRoot = sysRoot + "/class/net";
  for (const std::string& name : listDirectory(netRoot)) {
    const std::string dir = netRoot + "/" + name;
    if (!exists(dir + "/device")) continue;
    Nic nic;
    nic.kind = Nic::Kind::kEthernet;
    nic.name = name;
    nic.pciBusId = pciAddressOfClassDevice(dir);
    nic.numaNode = readInt(dir + "/device/numa_node", -1);
    layout->nics.push_back(nic);
  }
  const std::string rdmaRoot = sysRoot + "/class/infiniband";
  for (const std::string& name : listDirectory(rdmaRoot)) {
    const std::string dir = rdmaRoot + "/" + name;
    Nic nic;
    nic.kind = Nic::Kind::kRdma;
    nic.name = name;
    nic.pciBusId = pciAddressOfClassDevice(dir);
    nic.numaNode = readInt(dir + "/device/numa_node", -1);
    layout->nics.push_back(nic);
  }
  std::sort(layout->nics.begin(), layout->nics.end(),
            [](const Nic& a, const Nic& b) { return a.name < b.name; });

  if (layout->numaNodes.empty() && !exists(netRoot) && !exists(rdmaRoot)) {
    if (why) *why = "no NUMA or network information under " + sysRoot;
    return false;
  }
  return true;
}

}  // namespace flashccl
