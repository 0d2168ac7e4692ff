// The machine's network interfaces as the bonds need them: one address each, and where the
// device sits (NUMA node, PCI path, link speed, an RDMA device behind it) from sysfs.
#pragma once

#include <string>
#include <vector>

#include "tcp_socket.h"

namespace flashccl::softbond {

struct NetInterface {
  std::string name;
  SockAddr address;         // port 0; IPv4 preferred over IPv6 (link-local IPv6 is skipped)
  bool up = false;
  bool loopback = false;
  std::string pciPath;      // realpath of /sys/class/net/<if>/device, empty for virtual devices
  int numaNode = -1;
  int speedMbps = 0;        // 0: unknown
  std::string rdmaDevice;   // e.g. mlx5_0, when the netdev has one (RoCE / IPoIB)
  int rdmaPort = 1;
};

// Every interface with an address. `sysfsRoot` is "/sys" except in tests.
std::vector<NetInterface> listInterfaces(const std::string& sysfsRoot = "/sys");

// Reads the sysfs facts for one interface into `iface` (used by listInterfaces; tests feed it a
// fake tree).
void readSysfsFacts(const std::string& sysfsRoot, NetInterface* iface);

}  // namespace flashccl::softbond
