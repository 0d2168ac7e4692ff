// Verdicts on one GPU's measured bandwidths: host <-> device copies against the PCIe link's raw
// rate, and the device memory copy kernel against the memory interface's rate.
#pragma once

#include <string>

#include "check_result.h"
#include "nvml_health.h"

namespace flashccl {
namespace doctor {

// `direction` is "h2d" or "d2h". The expectation is `floorGBps` when the operator gave one
// (--expect), else kHostLinkWarnRatio of the link's maximum rate (generation and width the GPU
// and slot can reach, so a degraded link shows here too).
CheckResult judgeHostCopy(const std::string& direction, double measuredGBps,
                          const Reading<PcieLinkState>& link, double floorGBps,
                          const std::string& subject);

// `specGBps` from the memory interface (link_rates.h memoryGBps), `specSource` says from where
// ("NVML: 6144-bit x 3201 MHz"); `floorGBps` from --expect replaces it.
CheckResult judgeMemoryBandwidth(double measuredGBps, double specGBps,
                                 const std::string& specSource, double floorGBps,
                                 const std::string& subject);

}  // namespace doctor
}  // namespace flashccl
