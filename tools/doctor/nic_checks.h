// Verdicts on the NICs: RDMA port state and rate, GID types, the userspace verbs stack, and how
// close each GPU is to an RDMA NIC.
#pragma once

#include <string>
#include <vector>

#include "check_result.h"
#include "nic_inventory.h"
#include "verbs_probe.h"

namespace flashccl {
namespace doctor {

struct GpuPlacement {
  std::string label;  // "GPU 0"
  std::string busId;
  int numaNode = -1;
};

// port-state, port-rate, gid per RDMA port; verbs once. `rateFloorGbps` from --expect replaces
// "as fast as the fastest port of the same link layer". With no RDMA device: one SKIP saying so.
std::vector<CheckResult> judgeNics(const NicInventory& nics, const VerbsProbe& verbs,
                                   double rateFloorGbps);

// nic-locality per GPU: the closest active RDMA port and how close it is (pciDistance over the
// sysfs tree at `sysRoot`).
std::vector<CheckResult> judgeNicLocality(
    const std::vector<GpuPlacement>& gpus, const NicInventory& nics,
    const std::string& sysRoot);

}  // namespace doctor
}  // namespace flashccl
