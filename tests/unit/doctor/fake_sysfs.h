// Fake sysfs trees for doctor's tests, laid out the way the kernel lays them out: PCI devices
// nested under their bridges in devices/, bus/pci/devices/<id> links to them (with config,
// numa_node, iommu_group), class/infiniband/<dev> with ports, rates, GIDs and counters,
// class/net, devices/system/node, class/iommu.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pcie_acs.h"
#include "support/temp_dir.h"

namespace flashccl {
namespace testing {

class FakeSysfs {
 public:
  explicit FakeSysfs(const TempDir& dir, const std::string& name = "sys")
      : dir_(dir), relative_(name) {}
  std::string root() const { return dir_.path() + "/" + relative_; }

  // 4 KiB of configuration space: a PCIe capability of `portType` and, when `acsControl` >= 0,
  // an ACS extended capability with that control word.
  static std::string config(int portType, int acsControl) {
    std::string bytes(4096, '\0');
    bytes[0x06] = 0x10;  // status: capability list present
    bytes[0x34] = 0x40;
    bytes[0x40] = 0x10;  // PCI Express capability, last in the list
    bytes[0x42] = char(((portType & 0xF) << 4) | 0x2);
    if (acsControl >= 0) {
      bytes[0x100] = 0x0D;  // ACS, version 1, no next capability
      bytes[0x102] = 0x01;
      bytes[0x104] = 0x7F;  // every ACS feature present
      bytes[0x106] = char(acsControl & 0xFF);
      bytes[0x107] = char((acsControl >> 8) & 0xFF);
    }
    return bytes;
  }

  // A PCI device below `parent` (a host bridge "pci0000:15" or an earlier device's id). Returns
  // its directory relative to the tree.
  std::string pciDevice(const std::string& busId, const std::string& parent, int numaNode,
                        const std::string& configBytes) {
    const std::string parentPath = paths_.count(parent) ? paths_[parent] : "devices/" + parent;
    const std::string path = parentPath + "/" + busId;
    paths_[busId] = path;
    write(path + "/config", configBytes);
    write(path + "/numa_node", std::to_string(numaNode) + "\n");
    dir_.symlink(root() + "/" + path, relative_ + "/bus/pci/devices/" + busId);
    return path;
  }

  struct Port {
    int number = 1;
    std::string state = "4: ACTIVE";
    std::string physState = "5: LinkUp";
    std::string rate = "400 Gb/sec (4X NDR)";
    std::string linkLayer = "InfiniBand";
    std::vector<std::string> gidTypes;  // populated GIDs, index order
    uint64_t xmitWords = 0, rcvWords = 0;
  };

  void rdmaDevice(const std::string& name, const std::string& busId, const std::vector<Port>& ports) {
    const std::string dir = relative_ + "/class/infiniband/" + name;
    dir_.mkdir(dir);
    dir_.symlink(root() + "/" + paths_.at(busId), dir + "/device");
    for (const Port& port : ports) {
      const std::string p = "class/infiniband/" + name + "/ports/" + std::to_string(port.number);
      write(p + "/state", port.state + "\n");
      write(p + "/phys_state", port.physState + "\n");
      write(p + "/rate", port.rate + "\n");
      write(p + "/link_layer", port.linkLayer + "\n");
      for (size_t i = 0; i < port.gidTypes.size(); ++i) {
        write(p + "/gids/" + std::to_string(i), "fe80:0000:0000:0000:0ac0:ebff:fe0e:" + std::to_string(1000 + i) + "\n");
        write(p + "/gid_attrs/types/" + std::to_string(i), port.gidTypes[i] + "\n");
      }
      // An unpopulated GID: all zeros, and reading its type fails (absent here).
      write(p + "/gids/" + std::to_string(port.gidTypes.size()), "0000:0000:0000:0000:0000:0000:0000:0000\n");
      setCounters(name, port.number, port.xmitWords, port.rcvWords);
    }
  }

  void setCounters(const std::string& device, int port, uint64_t xmitWords, uint64_t rcvWords) {
    const std::string p = "class/infiniband/" + device + "/ports/" + std::to_string(port) + "/counters/";
    write(p + "port_xmit_data", std::to_string(xmitWords) + "\n");
    write(p + "port_rcv_data", std::to_string(rcvWords) + "\n");
  }

  // A network interface; with a bus id it is a physical one (a `device` link).
  void netInterface(const std::string& name, const std::string& busId = "") {
    const std::string dir = relative_ + "/class/net/" + name;
    dir_.mkdir(dir);
    if (!busId.empty()) dir_.symlink(root() + "/" + paths_.at(busId), dir + "/device");
  }

  void numaNode(int id, const std::string& cpus) {
    write("devices/system/node/node" + std::to_string(id) + "/cpulist", cpus + "\n");
  }

  // An IOMMU, with the group type of each listed device ("identity", "DMA-FQ", ...).
  void iommu(const std::map<std::string, std::string>& groupTypes) {
    dir_.mkdir(relative_ + "/class/iommu/dmar0");
    int group = 0;
    for (const auto& entry : groupTypes) {
      const std::string g = "kernel/iommu_groups/" + std::to_string(group++);
      write(g + "/type", entry.second + "\n");
      dir_.symlink(root() + "/" + g, relative_ + "/" + paths_.at(entry.first) + "/iommu_group");
    }
  }

 private:
  void write(const std::string& path, const std::string& contents) { dir_.write(relative_ + "/" + path, contents); }
  const TempDir& dir_;
  std::string relative_;
  std::map<std::string, std::string> paths_;  // bus id -> directory relative to the tree
};

// The tree of an HGX H200 box with the fake NVML's hgx-h200-8 GPUs (buses 18, 2a, 3a, 5d, 9a,
// ab, ba, db): four PCIe switches, two GPUs and one 400G InfiniBand NIC below each (mlx5_0..3),
// switches 0-1 on NUMA node 0 and 2-3 on node 1; IOMMU in passthrough. `acsControl` is the ACS
// control word of every switch downstream port (0 = redirect off, as it should be).
struct HgxTree {
  std::vector<std::string> gpus = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                                   "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"};
  std::vector<std::string> nics = {"0000:19:00.0", "0000:3b:00.0", "0000:9b:00.0", "0000:bb:00.0"};
  std::vector<std::string> downstreamPorts;
};

inline HgxTree buildHgxTree(FakeSysfs& sys, int acsControl = 0, int redirectingSwitch = -1) {
  HgxTree tree;
  sys.numaNode(0, "0-55,112-167");
  sys.numaNode(1, "56-111,168-223");
  const char* bridges[4] = {"pci0000:15", "pci0000:37", "pci0000:97", "pci0000:b7"};
  const int rootBus[4] = {0x15, 0x37, 0x97, 0xb7};
  std::map<std::string, std::string> groups;
  for (int s = 0; s < 4; ++s) {
    const int numa = s / 2;
    char rootPort[16], up[16], down[3][16];
    std::snprintf(rootPort, sizeof(rootPort), "0000:%02x:01.0", rootBus[s]);
    std::snprintf(up, sizeof(up), "0000:%02x:00.0", rootBus[s] + 1);
    sys.pciDevice(rootPort, bridges[s], numa, FakeSysfs::config(doctor::kPciePortRoot, 0));
    sys.pciDevice(up, rootPort, numa, FakeSysfs::config(doctor::kPciePortSwitchUp, 0));
    const int control = s == redirectingSwitch ? (doctor::kAcsRequestRedirect | doctor::kAcsCompletionRedirect | 1)
                                               : acsControl;
    for (int d = 0; d < 3; ++d) {
      std::snprintf(down[d], sizeof(down[d]), "0000:%02x:%02x.0", rootBus[s] + 2, d);
      sys.pciDevice(down[d], up, numa, FakeSysfs::config(doctor::kPciePortSwitchDown, control));
      tree.downstreamPorts.push_back(down[d]);
    }
    const std::string gpuA = tree.gpus[size_t(2 * s)], gpuB = tree.gpus[size_t(2 * s + 1)];
    sys.pciDevice(gpuA, down[0], numa, FakeSysfs::config(0, -1));
    sys.pciDevice(gpuB, down[1], numa, FakeSysfs::config(0, -1));
    sys.pciDevice(tree.nics[size_t(s)], down[2], numa, FakeSysfs::config(0, -1));
    for (const std::string& device : {gpuA, gpuB, tree.nics[size_t(s)]}) groups[device] = "identity";
  }
  sys.iommu(groups);
  for (int s = 0; s < 4; ++s) {
    FakeSysfs::Port port;
    sys.rdmaDevice("mlx5_" + std::to_string(s), tree.nics[size_t(s)], {port});
    sys.netInterface("ib" + std::to_string(s), tree.nics[size_t(s)]);
  }
  sys.netInterface("lo");
  sys.netInterface("docker0");
  return tree;
}

}  // namespace testing
}  // namespace flashccl
