#include "gpu_health_checks.h"

#include "link_rates.h"

namespace flashccl {
namespace doctor {

namespace {

const char* const kGpu = kFamilyGpu;

std::string count(uint64_t n, const char* what) {
  return std::to_string(n) + " " + what;
}

CheckResult eccMode(const GpuHealth& gpu, const std::string& subject) {
  if (!gpu.eccEnabled.known) return skipCheck(kGpu, "ecc", subject, gpu.eccEnabled.why);
  const bool pending = gpu.eccPendingChange.known && gpu.eccPendingChange.value;
  if (!gpu.eccEnabled.value) {
    return makeCheck(kGpu, "ecc", subject, Verdict::kWarn,
                     pending ? "off (on after the next reboot)" : "off", "on",
                     "without ECC a flipped bit in GPU memory silently corrupts a tensor or a "
                     "collective's payload; turn it on (nvidia-smi -e 1) and reboot");
  }
  if (pending) {
    return makeCheck(kGpu, "ecc", subject, Verdict::kWarn, "on (off after the next reboot)", "on",
                     "someone scheduled ECC off; undo it (nvidia-smi -e 1) before the reboot");
  }
  return makeCheck(kGpu, "ecc", subject, Verdict::kPass, "on", "on",
                   "ECC detects and corrects memory bit flips");
}

CheckResult eccErrors(const GpuHealth& gpu, const std::string& subject) {
  if (!gpu.uncorrectedVolatile.known) {
    return skipCheck(kGpu, "ecc-errors", subject, gpu.uncorrectedVolatile.why);
  }
  const uint64_t sinceLoad = gpu.uncorrectedVolatile.value;
  const uint64_t lifetime = gpu.uncorrectedAggregate.known ? gpu.uncorrectedAggregate.value : 0;
  std::string measured = count(sinceLoad, "uncorrectable since driver load");
  if (gpu.uncorrectedAggregate.known) measured += " (" + count(lifetime, "lifetime") + ")";
  if (gpu.correctedVolatile.known) measured += ", " + count(gpu.correctedVolatile.value, "corrected");
  if (sinceLoad > 0) {
    return makeCheck(kGpu, "ecc-errors", subject, Verdict::kFail, measured, "0 uncorrectable",
                     "an uncorrectable error kills the process that touched the memory (Xid "
                     "48/94/95) and the GPU must be reset before it is trusted again; drain the "
                     "node, reset the GPU, and replace it if the errors come back");
  }
  if (lifetime > 0) {
    return makeCheck(kGpu, "ecc-errors", subject, Verdict::kWarn, measured, "0 uncorrectable",
                     "uncorrectable errors happened before the last driver load; watch the count "
                     "(rising again means the GPU is failing)");
  }
  return makeCheck(kGpu, "ecc-errors", subject, Verdict::kPass, measured, "0 uncorrectable",
                   "uncorrectable memory errors crash jobs and call for a GPU reset");
}

CheckResult remappedRows(const GpuHealth& gpu, const std::string& subject) {
  if (!gpu.remappedRows.known) {
    return skipCheck(kGpu, "remapped-rows", subject,
                     gpu.remappedRows.why + "; row remapping exists from Ampere on");
  }
  const RemappedRows& rows = gpu.remappedRows.value;
  const std::string measured = "remapped: " + std::to_string(rows.corrected) + " correctable, " +
                               std::to_string(rows.uncorrected) + " uncorrectable" +
                               (rows.pending ? "; remap pending" : "") +
                               (rows.failed ? "; remap FAILED" : "");
  if (rows.failed) {
    return makeCheck(kGpu, "remapped-rows", subject, Verdict::kFail, measured,
                     "no failed remap", "a bank ran out of spare rows: the bad memory stays in "
                     "use; take the GPU out of service (an RMA case)");
  }
  if (rows.pending) {
    return makeCheck(kGpu, "remapped-rows", subject, Verdict::kFail, measured, "no pending remap",
                     "the faulty row is still mapped until the GPU is reset; drain the node and "
                     "reset the GPU (nvidia-smi -r) or reboot");
  }
  return makeCheck(kGpu, "remapped-rows", subject, Verdict::kPass, measured,
                   "no pending or failed remap",
                   "remapping replaces faulty memory rows; a pending remap needs a GPU reset");
}

CheckResult retiredPages(const GpuHealth& gpu, const std::string& subject) {
  if (!gpu.retiredPages.known) {
    return skipCheck(kGpu, "retired-pages", subject,
                     gpu.retiredPages.why + "; GPUs from Ampere on remap rows instead");
  }
  const RetiredPages& pages = gpu.retiredPages.value;
  const std::string measured = "retired: " + std::to_string(pages.singleBit) + " single-bit, " +
                               std::to_string(pages.doubleBit) + " double-bit" +
                               (pages.pending ? "; retirement pending" : "");
  if (pages.pending) {
    return makeCheck(kGpu, "retired-pages", subject, Verdict::kFail, measured,
                     "no pending retirement", "the faulty page stays in use until the next "
                     "driver load; drain the node and reboot");
  }
  if (pages.doubleBit > 0) {
    return makeCheck(kGpu, "retired-pages", subject, Verdict::kWarn, measured,
                     "0 after double-bit errors",
                     "double-bit errors crashed jobs on this GPU before; watch the count");
  }
  return makeCheck(kGpu, "retired-pages", subject, Verdict::kPass, measured,
                   "no pending retirement", "retired pages mark memory that failed");
}

}  // namespace

std::string gpuSubject(int index, const std::string& busId) {
  return "GPU " + std::to_string(index) + (busId.empty() ? "" : " (" + busId + ")");
}

std::vector<CheckResult> judgeMemoryHealth(const GpuHealth& gpu, const std::string& subject) {
  return {eccMode(gpu, subject), eccErrors(gpu, subject), remappedRows(gpu, subject),
          retiredPages(gpu, subject)};
}

CheckResult judgeClocks(const Reading<Clocks>& clocks, const Reading<uint64_t>& reasons,
                        bool underLoad, const std::string& subject) {
  if (!reasons.known) return skipCheck(kGpu, "clocks", subject, reasons.why);
  std::string measured;
  if (clocks.known) {
    measured = "SM " + std::to_string(clocks.value.sm) + "/" + std::to_string(clocks.value.smMax) +
               " MHz, memory " + std::to_string(clocks.value.mem) + "/" +
               std::to_string(clocks.value.memMax) + " MHz";
  }
  measured += std::string(measured.empty() ? "" : " ") + (underLoad ? "under load" : "idle");
  const std::string names = throttle::reasonNames(reasons.value);
  measured += "; limited by: " + (names.empty() ? std::string("nothing") : names);
  const char* expected = "no hardware slowdown, no thermal limit";
  const uint64_t hardware =
      throttle::kHwSlowdown | throttle::kHwThermalSlowdown | throttle::kHwPowerBrakeSlowdown;
  if (reasons.value & hardware) {
    return makeCheck(kGpu, "clocks", subject, Verdict::kFail, measured, expected,
                     "a hardware slowdown cuts the clocks by half or more (overheating, power "
                     "brake, a failing power supply): every kernel of the job, collectives "
                     "included, runs at that pace; check cooling and power (nvidia-smi -q -d "
                     "PERFORMANCE)");
  }
  if (reasons.value & throttle::kSwThermalSlowdown) {
    return makeCheck(kGpu, "clocks", subject, Verdict::kWarn, measured, expected,
                     "the driver lowers the clocks to stay under the temperature limit; check "
                     "airflow and inlet temperature");
  }
  if (reasons.value & throttle::kApplicationsClocksSetting) {
    return makeCheck(kGpu, "clocks", subject, Verdict::kWarn, measured, expected,
                     "application clocks are set below the default; reset them (nvidia-smi "
                     "-rac) unless that was intended");
  }
  return makeCheck(kGpu, "clocks", subject, Verdict::kPass, measured, expected,
                   "throttled clocks slow every kernel of the job");
}

CheckResult judgePcieLink(const Reading<PcieLinkState>& reading, bool underLoad,
                          const std::string& subject) {
  if (!reading.known) return skipCheck(kGpu, "pcie-link", subject, reading.why);
  const PcieLinkState& link = reading.value;
  const std::string measured = pcieLinkName(link.generation, link.width) +
                               (underLoad ? " under load" : " idle");
  const std::string expected = pcieLinkName(link.maxGeneration, link.maxWidth);
  CheckResult check = withValue(
      makeCheck(kGpu, "pcie-link", subject, Verdict::kPass, measured, expected,
                "the host link carries every copy between host and GPU and, on PCIe machines, "
                "the GPU-to-GPU and GPU-to-NIC traffic too"),
      pcieLinkGBps(link.generation, link.width), "GB/s");
  if (link.width < link.maxWidth) {
    check.verdict = Verdict::kFail;
    check.why = "the link trained at x" + std::to_string(link.width) + " instead of x" +
                std::to_string(link.maxWidth) +
                ": a fraction of the host bandwidth; reseat the card, check the riser or cable "
                "and the slot's lanes in the BIOS";
  } else if (link.generation < link.maxGeneration && underLoad) {
    check.verdict = Verdict::kFail;
    check.why = "the link runs at Gen" + std::to_string(link.generation) + " while busy, below "
                "the Gen" + std::to_string(link.maxGeneration) +
                " it can reach: a signal-integrity fault (riser, retimer, cable) or a BIOS "
                "limit; check the slot's link speed setting and the AER errors in dmesg";
  } else if (link.generation < link.maxGeneration) {
    check.why = "read while the GPU is idle, when it lowers its link speed to save power; "
                "doctor reads it again under load when the bandwidth checks run";
    check.value = std::nan("");  // a power state, not a rate to compare with other GPUs
  } else if (link.gpuMaxGeneration > link.maxGeneration) {
    check.verdict = Verdict::kWarn;
    check.why = "the GPU could run Gen" + std::to_string(link.gpuMaxGeneration) +
                " but the slot or platform stops at Gen" + std::to_string(link.maxGeneration) +
                ": host copies get at most " +
                formatNumber(pcieLinkGBps(link.maxGeneration, link.maxWidth), 1) + " GB/s";
  }
  return check;
}

}  // namespace doctor
}  // namespace flashccl
