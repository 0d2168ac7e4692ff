// Per-rail traffic: the RDMA ports' byte counters read before and after the collective run, so
// traffic piled onto some rails (the seeding probe: 885 GB on two rails, 295 GB on the other two,
// during an alltoall) shows with its numbers.
#pragma once

#include <string>
#include <vector>

#include "check_result.h"
#include "nic_inventory.h"

namespace flashccl {
namespace doctor {

// One summary check ("rails") and one per active port with its share. `activePorts` are the
// RdmaPort names whose traffic counts; `during` names what ran ("the collective run").
std::vector<CheckResult> judgeRailTraffic(const std::vector<PortTraffic>& before,
                                          const std::vector<PortTraffic>& after,
                                          const std::vector<std::string>& activePorts,
                                          const std::string& during);

}  // namespace doctor
}  // namespace flashccl
