// Verdicts on one GPU's NVML state: ECC, remapped rows, retired pages, clocks and throttle
// reasons, the PCIe link. Pure functions of the readings, so recorded readings test them.
#pragma once

#include <string>
#include <vector>

#include "check_result.h"
#include "nvml_health.h"

namespace flashccl {
namespace doctor {

// "GPU 0 (0000:18:00.0)".
std::string gpuSubject(int index, const std::string& busId);

// ecc, ecc-errors, remapped-rows, retired-pages.
std::vector<CheckResult> judgeMemoryHealth(const GpuHealth& gpu, const std::string& subject);

// clocks: throttle reasons decide; `underLoad` says whether the sample was taken while copies
// kept the GPU busy (reported, since idle clocks are low by design).
CheckResult judgeClocks(const Reading<Clocks>& clocks, const Reading<uint64_t>& reasons,
                        bool underLoad, const std::string& subject);

// pcie-link: width below the maximum fails at any time; a lower generation fails only under
// load, because an idle GPU lowers its link speed to save power.
CheckResult judgePcieLink(const Reading<PcieLinkState>& link, bool underLoad,
                          const std::string& subject);

}  // namespace doctor
}  // namespace flashccl
