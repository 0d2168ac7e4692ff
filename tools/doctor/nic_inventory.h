// NICs as sysfs describes them: RDMA ports (state, rate, link layer, GID types, traffic
// counters) and network interfaces, with their PCI address and NUMA node for locality.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

struct RdmaPort {
  std::string device;  // "mlx5_0"
  int port = 1;
  std::string state;       // "ACTIVE", "DOWN", ... (the word of "4: ACTIVE")
  std::string physState;   // "LinkUp", "Disabled", ...
  std::string rateText;    // "400 Gb/sec (4X NDR)"
  double rateGbps = 0.0;
  std::string linkLayer;   // "InfiniBand" or "Ethernet" (RoCE)
  std::vector<std::string> gidTypes;  // one per populated GID: "RoCE v2", "IB/RoCE v1"
  std::string pciBusId;
  int numaNode = -1;
  std::string name() const { return device + "/" + std::to_string(port); }
  bool active() const { return state == "ACTIVE"; }
};

struct NicInventory {
  std::vector<RdmaPort> rdmaPorts;
  std::vector<std::string> rdmaDevices;
  std::vector<std::string> interfaces;  // every name in class/net
};

NicInventory readNicInventory(const std::string& sysRoot);

// Byte counters of each RDMA port (port_xmit_data and port_rcv_data count 4-byte words).
struct PortTraffic {
  std::string port;  // RdmaPort::name()
  uint64_t xmitBytes = 0;
  uint64_t rcvBytes = 0;
};
std::vector<PortTraffic> readPortTraffic(const std::string& sysRoot, const NicInventory& nics);

// "400 Gb/sec (4X NDR)" -> 400.
double parseRateGbps(const std::string& rateText);

// How close two PCI devices are, in nvidia-smi `topo -m` words: "PIX/PXB" (share a PCIe switch
// or bridge below the root port), "PHB" (the same root complex), "NODE" (the same NUMA node),
// "SYS" (across NUMA nodes), "?" when a path is unknown. From their sysfs device paths.
std::string pciDistance(const std::string& sysRoot, const std::string& a, int numaA,
                        const std::string& b, int numaB);
// Rank of a distance for "closest" comparisons (lower is closer).
int pciDistanceRank(const std::string& distance);

}  // namespace doctor
}  // namespace flashccl
