// NUMA nodes and NICs of this host: from hwloc when it can be loaded (docs/design.md, "Few dependencies": dlopen'ed,
// absent = off), else from sysfs, which every Linux host has.
#pragma once

#include <string>
#include <vector>

#include "topo/topology.h"

namespace flashccl {

struct HostLayout {
  std::vector<NumaNode> numaNodes;
  std::vector<Nic> nics;  // sorted by name
  std::string source;     // "hwloc" or "sysfs"
};

// hwloc 2.x through dlopen(`library`) (e.g. "libhwloc.so.15"). Returns false with *why set when
// the library is absent, is not hwloc 2.x, this build had no hwloc.h, or loading failed.
bool readHostLayoutWithHwloc(const std::string& library, HostLayout* layout, std::string* why);

// The same from a sysfs tree (`sysRoot` is "/sys" outside tests): NUMA nodes from
// devices/system/node, NICs from class/net (physical interfaces only) and class/infiniband.
// Returns false with *why set when the tree has neither.
bool readHostLayoutFromSysfs(const std::string& sysRoot, HostLayout* layout, std::string* why);

// NUMA node of a PCI device from sysfs; -1 when unknown (also what sysfs says on one-node hosts).
int pciNumaNode(const std::string& sysRoot, const std::string& pciBusId);

}  // namespace flashccl
