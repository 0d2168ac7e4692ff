// The devices this plugin reports to NCCL. Each is a bond of 1 to 4 rails: named in
// FLASHCCL_SOFTBOND_RAILS, or else grouped by locality (interfaces on the same NUMA node and PCI
// root complex form one bond, as NCCL would want one NIC per GPU group).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net_interfaces.h"
#include "settings.h"

namespace flashccl::softbond {

struct Bond {
  std::string name;                 // "eth0+eth1": unique; NCCL keys its topology on it
  std::vector<NetInterface> rails;
  std::string pciPath;              // the first rail with a PCI device (empty: all virtual)
  uint64_t guid = 0;
  int speedMbps = 0;                // sum over rails (active-active)
};

// From the parsed settings and the machine's interfaces. `socketIfname` is NCCL_SOCKET_IFNAME
// (may be empty), honoured when the rails are chosen automatically. Never fails: problems are
// WARN lines and the rails or bonds concerned are left out.
std::vector<Bond> chooseBonds(const Settings& settings, const std::vector<NetInterface>& interfaces,
                              const std::string& socketIfname);

}  // namespace flashccl::softbond
