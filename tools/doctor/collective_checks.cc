#include "collective_checks.h"

#include "thresholds.h"

namespace flashccl {
namespace doctor {

namespace {

const char* const kCollectives = kFamilyCollectives;

std::string gbps(double value) { return formatNumber(value, 1) + " GB/s"; }

CheckResult judgeMeasurement(const PerfMeasurement& m, int ranks, const Expectations& expectations) {
  const std::string subject = m.collective + " " + sizeText(m.bytes) + ", " + std::to_string(ranks) + " ranks";
  const std::string measured = "busbw NCCL " + gbps(m.ncclBusbw) + ", flashccl " + gbps(m.flashcclBusbw) +
                               " (" + (m.algorithm.empty() ? std::string("?") : m.algorithm) + ")" +
                               (m.checked ? "; #wrong " + std::to_string(m.wrong) : std::string("; unchecked"));
  const BusbwFloor* floor = expectations.floorFor(m.collective, ranks, m.bytes);
  CheckResult check = withValue(
      makeCheck(kCollectives, "busbw", subject, Verdict::kPass, measured,
                floor ? ">= " + gbps(floor->minGBps) + " (" + floor->source + ")"
                      : std::string("no floor for this machine (topology file or --expect)"),
                "bus bandwidth as nccl-tests defines it: what the job's collectives get"),
      m.ncclBusbw, "GB/s");
  if (m.checked && m.wrong > 0) {
    check.verdict = Verdict::kFail;
    check.why = "flashccl's result differs from NCCL's in " + std::to_string(m.wrong) +
                " elements: run `flashccl perf` on this size to see where, and set "
                "FLASHCCL_ALGO=nccl until it is fixed";
    return check;
  }
  if (floor != nullptr && m.ncclBusbw < floor->minGBps) {
    check.verdict = Verdict::kFail;
    check.why = "NCCL itself is below what a healthy machine of this type reaches: look at the "
                "pair, pcie-link and NIC checks above for the weak link";
    return check;
  }
  if (floor != nullptr && m.flashcclBusbw < floor->minGBps && m.flashcclBusbw < m.ncclBusbw) {
    check.verdict = Verdict::kFail;
    check.why = "flashccl is below the floor NCCL reaches here: its algorithm for this size does "
                "not suit this machine; FLASHCCL_ALGO=nccl forwards it";
    return check;
  }
  if (m.flashcclBusbw < threshold::kFlashcclSlowerRatio * m.ncclBusbw) {
    check.verdict = Verdict::kWarn;
    check.why = "flashccl is more than " + formatNumber((1 - threshold::kFlashcclSlowerRatio) * 100, 0) +
                "% slower than NCCL at this size: its selection table does not fit this machine "
                "(`flashccl plan` shows the row; `flashccl tune` rewrites it)";
  }
  return check;
}

}  // namespace

std::string sizeText(size_t bytes) {
  const char* suffixes[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + suffixes[unit];
}

std::vector<CheckResult> judgeCollectives(const std::vector<CollectiveOutcome>& outcomes,
                                          const Expectations& expectations) {
  std::vector<CheckResult> checks;
  for (const CollectiveOutcome& outcome : outcomes) {
    switch (outcome.status) {
      case CollectiveOutcome::Status::kUnsupported:
        checks.push_back(skipCheck(kCollectives, "busbw", outcome.collective,
                                   "flashccl perf cannot measure it: " + outcome.message));
        break;
      case CollectiveOutcome::Status::kFailed:
        checks.push_back(makeCheck(kCollectives, "busbw", outcome.collective, Verdict::kFail,
                                   "flashccl perf failed", "a completed run",
                                   outcome.message + " (the perf log is kept; rerun `flashccl "
                                   "perf --coll " + outcome.collective + "` to see all of it)"));
        break;
      case CollectiveOutcome::Status::kMeasured:
        for (const PerfMeasurement& m : outcome.run.results) {
          checks.push_back(judgeMeasurement(m, outcome.run.ranks, expectations));
        }
        break;
    }
  }
  return checks;
}

}  // namespace doctor
}  // namespace flashccl
