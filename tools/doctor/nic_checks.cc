#include "nic_checks.h"

#include <algorithm>
#include <map>

namespace flashccl {
namespace doctor {

namespace {

const char* const kNics = kFamilyNics;

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

CheckResult verbsCheck(const NicInventory& nics, const VerbsProbe& verbs) {
  const std::string expected = "lists and opens " + joined(nics.rdmaDevices);
  if (!verbs.loaded) {
    return makeCheck(kNics, "verbs", "node", Verdict::kFail, "libibverbs unusable: " + verbs.why,
                     expected,
                     "the kernel shows RDMA devices but NCCL cannot reach them without "
                     "libibverbs.so.1: it falls back to TCP sockets; install rdma-core "
                     "(libibverbs1 and the provider, e.g. ibverbs-providers)");
  }
  std::vector<std::string> unseen;
  for (const std::string& device : nics.rdmaDevices) {
    if (std::find(verbs.devices.begin(), verbs.devices.end(), device) == verbs.devices.end()) {
      unseen.push_back(device);
    }
  }
  const std::string measured = "lists " + (verbs.devices.empty() ? std::string("nothing") : joined(verbs.devices)) +
                               (verbs.openFailures.empty() ? "" : "; cannot open " + joined(verbs.openFailures));
  if (!unseen.empty() || !verbs.openFailures.empty()) {
    return makeCheck(kNics, "verbs", "node", Verdict::kFail, measured, expected,
                     !unseen.empty()
                         ? joined(unseen) + " is in sysfs but not in libibverbs' list: the "
                           "provider library for it is missing (rdma-core's ibverbs-providers); "
                           "NCCL falls back to TCP sockets"
                         : "a device cannot be opened (in a container: /dev/infiniband not "
                           "mapped, or memlock limits); NCCL falls back to TCP sockets");
  }
  return makeCheck(kNics, "verbs", "node", Verdict::kPass, measured, expected,
                   "NCCL's IB/RoCE transport goes through libibverbs");
}

CheckResult gidCheck(const RdmaPort& port) {
  if (port.linkLayer != "Ethernet") {
    return makeCheck(kNics, "gid", port.name(), Verdict::kPass,
                     port.linkLayer.empty() ? "link layer unknown" : port.linkLayer, "-",
                     "InfiniBand routes by LID; GID types matter for RoCE only");
  }
  const bool v2 = std::find(port.gidTypes.begin(), port.gidTypes.end(), "RoCE v2") != port.gidTypes.end();
  std::map<std::string, int> counts;
  for (const std::string& type : port.gidTypes) ++counts[type];
  std::string measured;
  for (const auto& entry : counts) {
    measured += (measured.empty() ? "" : ", ") + std::to_string(entry.second) + " x " + entry.first;
  }
  if (port.gidTypes.empty()) {
    return makeCheck(kNics, "gid", port.name(), Verdict::kWarn, "no GID", "a RoCE v2 GID",
                     "a RoCE port without a GID has no IP address on its netdev: NCCL cannot "
                     "use it");
  }
  if (!v2) {
    return makeCheck(kNics, "gid", port.name(), Verdict::kWarn, measured, "a RoCE v2 GID",
                     "only RoCE v1 GIDs: v1 is not routable across subnets; NCCL picks a v2 "
                     "GID when it has one (NCCL_IB_GID_INDEX / NCCL_IB_ROCE_VERSION_NUM)");
  }
  return makeCheck(kNics, "gid", port.name(), Verdict::kPass, measured, "a RoCE v2 GID",
                   "RoCE v2 carries NCCL's traffic over routed Ethernet");
}

}  // namespace

std::vector<CheckResult> judgeNics(const NicInventory& nics, const VerbsProbe& verbs,
                                   double rateFloorGbps) {
  std::vector<CheckResult> checks;
  if (nics.rdmaDevices.empty()) {
    checks.push_back(skipCheck(kNics, "rdma", "node",
                               "no RDMA device (sysfs class/infiniband is empty): a single-node "
                               "machine needs none; between nodes NCCL would use TCP sockets"));
    return checks;
  }
  checks.push_back(verbsCheck(nics, verbs));
  std::map<std::string, double> fastest;  // per link layer, over active ports
  for (const RdmaPort& port : nics.rdmaPorts) {
    if (port.active()) fastest[port.linkLayer] = std::max(fastest[port.linkLayer], port.rateGbps);
  }
  for (const RdmaPort& port : nics.rdmaPorts) {
    const std::string subject = port.name() + (port.pciBusId.empty() ? "" : " (" + port.pciBusId + ")");
    if (!port.active()) {
      checks.push_back(makeCheck(kNics, "port-state", subject, Verdict::kWarn,
                                 port.state + (port.physState.empty() ? "" : ", " + port.physState),
                                 "ACTIVE", "NCCL skips a port that is not active: one rail "
                                 "fewer, and every rank on this node shares the others; check "
                                 "the cable, the switch port and the subnet manager"));
      continue;
    }
    checks.push_back(makeCheck(kNics, "port-state", subject, Verdict::kPass, "ACTIVE", "ACTIVE",
                               "only active ports carry traffic"));
    const double expected = rateFloorGbps > 0.0 ? rateFloorGbps : fastest[port.linkLayer];
    const std::string expectedText = formatNumber(expected, 0) + " Gb/s" +
                                     (rateFloorGbps > 0.0 ? " (--expect)" : " (the fastest port here)");
    CheckResult rate = withValue(makeCheck(kNics, "port-rate", subject, Verdict::kPass,
                                           port.rateText, expectedText,
                                           "a collective striped over rails runs at the pace of "
                                           "the slowest one"),
                                 port.rateGbps, "Gb/s");
    if (port.rateGbps < expected) {
      rate.verdict = rateFloorGbps > 0.0 ? Verdict::kFail : Verdict::kWarn;
      rate.why = "this port negotiated less than its peers: a collective striped over rails runs "
                 "at the pace of the slowest one; check the cable and the switch port speed";
    }
    checks.push_back(rate);
    checks.push_back(gidCheck(port));
  }
  return checks;
}

std::vector<CheckResult> judgeNicLocality(const std::vector<GpuPlacement>& gpus,
                                          const NicInventory& nics, const std::string& sysRoot) {
  std::vector<CheckResult> checks;
  std::vector<const RdmaPort*> active;
  for (const RdmaPort& port : nics.rdmaPorts) {
    if (port.active()) active.push_back(&port);
  }
  if (gpus.empty() || active.empty()) {
    checks.push_back(skipCheck(kNics, "nic-locality", "node",
                               gpus.empty() ? "no GPU to place" : "no active RDMA port"));
    return checks;
  }
  for (const GpuPlacement& gpu : gpus) {
    const RdmaPort* best = nullptr;
    std::string bestDistance;
    for (const RdmaPort* port : active) {
      const std::string distance = pciDistance(sysRoot, gpu.busId, gpu.numaNode, port->pciBusId, port->numaNode);
      if (best == nullptr || pciDistanceRank(distance) < pciDistanceRank(bestDistance)) {
        best = port;
        bestDistance = distance;
      }
    }
    const std::string measured = "closest " + best->name() + ": " + bestDistance;
    const char* expected = "an RDMA port on the GPU's NUMA node (PIX/PXB best)";
    if (bestDistance == "SYS") {
      checks.push_back(makeCheck(kNics, "nic-locality", gpu.label, Verdict::kWarn, measured, expected,
                                 "every network transfer of this GPU crosses the CPU-to-CPU link "
                                 "and GPUDirect RDMA is off for it (NCCL_NET_GDR_LEVEL): slower "
                                 "inter-node traffic"));
    } else {
      checks.push_back(makeCheck(kNics, "nic-locality", gpu.label,
                                 bestDistance == "?" ? Verdict::kSkip : Verdict::kPass, measured,
                                 expected,
                                 bestDistance == "?"
                                     ? "sysfs does not place the GPU or the NIC"
                                     : "NCCL pairs each GPU with its closest NIC; GPUDirect RDMA "
                                       "needs them under one PCIe switch to run at full speed"));
    }
  }
  return checks;
}

}  // namespace doctor
}  // namespace flashccl
