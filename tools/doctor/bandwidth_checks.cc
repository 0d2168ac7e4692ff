#include "bandwidth_checks.h"

#include "link_rates.h"
#include "thresholds.h"

namespace flashccl {
namespace doctor {

namespace {

std::string gbps(double value) { return formatNumber(value, 1) + " GB/s"; }

// An operator's floor (--expect) replaces the derived expectation: below it is a FAIL. False
// when there is none.
bool applyFloor(double measuredGBps, double floorGBps, CheckResult* check) {
  if (floorGBps <= 0.0) return false;
  check->expected = ">= " + gbps(floorGBps) + " (--expect)";
  if (measuredGBps < floorGBps) check->verdict = Verdict::kFail;
  return true;
}

}  // namespace

CheckResult judgeHostCopy(const std::string& direction, double measuredGBps,
                          const Reading<PcieLinkState>& link, double floorGBps,
                          const std::string& subject) {
  const std::string what = direction == "h2d" ? "host to device" : "device to host";
  const std::string why = what + " copies (pinned memory) load checkpoints, move activations "
                          "off the GPU and, without GPUDirect, stage every network transfer";
  CheckResult check = withValue(makeCheck(kFamilyBandwidth, direction, subject, Verdict::kPass,
                                          gbps(measuredGBps), "", why),
                                measuredGBps, "GB/s");
  if (applyFloor(measuredGBps, floorGBps, &check)) return check;
  const double raw = link.known ? pcieLinkGBps(link.value.maxGeneration, link.value.maxWidth) : 0.0;
  if (raw <= 0.0) {
    check.verdict = Verdict::kSkip;
    check.expected = "-";
    check.why = "no expected rate: the PCIe link is unknown (" +
                (link.known ? std::string("NVML reported no generation") : link.why) +
                "); give one with --expect (" + direction + "_gbps)";
    return check;
  }
  const std::string linkName = pcieLinkName(link.value.maxGeneration, link.value.maxWidth);
  check.expected = ">= " + gbps(raw * threshold::kHostLinkWarnRatio) + " (" +
                   formatNumber(threshold::kHostLinkWarnRatio * 100, 0) + "% of " + linkName +
                   " = " + gbps(raw) + ")";
  check.verdict = ratioVerdict(measuredGBps, raw * threshold::kHostLinkWarnRatio,
                               raw * threshold::kHostLinkFailRatio);
  if (check.verdict != Verdict::kPass) {
    check.why = formatNumber(100.0 * measuredGBps / raw, 0) + "% of what " + linkName +
                " carries: look at the pcie-link check, the IOMMU mode, the NUMA node the "
                "copies ran from, and other traffic on the same PCIe switch";
  }
  return check;
}

CheckResult judgeMemoryBandwidth(double measuredGBps, double specGBps,
                                 const std::string& specSource, double floorGBps,
                                 const std::string& subject) {
  const std::string why = "device memory bandwidth bounds every copy and reduction kernel, "
                          "flashccl's and NCCL's alike";
  CheckResult check = withValue(makeCheck(kFamilyBandwidth, "memory", subject, Verdict::kPass,
                                          gbps(measuredGBps), "", why),
                                measuredGBps, "GB/s");
  if (applyFloor(measuredGBps, floorGBps, &check)) return check;
  if (specGBps <= 0.0) {
    check.verdict = Verdict::kSkip;
    check.expected = "-";
    check.why = "no expected rate: the memory interface is unknown (" + specSource +
                "); give one with --expect (memory_gbps)";
    return check;
  }
  check.expected = ">= " + gbps(specGBps * threshold::kMemoryWarnRatio) + " (" +
                   formatNumber(threshold::kMemoryWarnRatio * 100, 0) + "% of " + gbps(specGBps) +
                   ", " + specSource + ")";
  check.verdict = ratioVerdict(measuredGBps, specGBps * threshold::kMemoryWarnRatio,
                               specGBps * threshold::kMemoryFailRatio);
  if (check.verdict != Verdict::kPass) {
    check.why = formatNumber(100.0 * measuredGBps / specGBps, 0) +
                "% of the memory interface's rate: look at the clocks check (memory clock, "
                "throttling) and at other work on the GPU";
  }
  return check;
}

}  // namespace doctor
}  // namespace flashccl
