#include "rail_traffic.h"

#include <algorithm>
#include <cmath>

#include "thresholds.h"

namespace flashccl {
namespace doctor {

namespace {

std::string gigabytes(double bytes) { return formatNumber(bytes / 1e9, 2) + " GB"; }

const PortTraffic* find(const std::vector<PortTraffic>& traffic, const std::string& port) {
  for (const PortTraffic& t : traffic) {
    if (t.port == port) return &t;
  }
  return nullptr;
}

}  // namespace

std::vector<CheckResult> judgeRailTraffic(const std::vector<PortTraffic>& before,
                                          const std::vector<PortTraffic>& after,
                                          const std::vector<std::string>& activePorts,
                                          const std::string& during) {
  const char* check = "rails";
  struct Rail {
    std::string port;
    double xmit, rcv;
  };
  std::vector<Rail> rails;
  std::vector<std::string> unreadable;
  for (const std::string& port : activePorts) {
    const PortTraffic* b = find(before, port);
    const PortTraffic* a = find(after, port);
    if (b == nullptr || a == nullptr || a->xmitBytes < b->xmitBytes || a->rcvBytes < b->rcvBytes) {
      unreadable.push_back(port);  // no counters, or they were reset or wrapped meanwhile
      continue;
    }
    rails.push_back(Rail{port, double(a->xmitBytes - b->xmitBytes), double(a->rcvBytes - b->rcvBytes)});
  }
  if (rails.size() < 2) {
    return {skipCheck(kFamilyNics, check, "node",
                      rails.empty() ? "no readable port counters on active RDMA ports"
                                    : "one active RDMA port: nothing to balance")};
  }
  double total = 0.0;
  for (const Rail& rail : rails) total += rail.xmit + rail.rcv;
  if (total < threshold::kRailMinimumBytes) {
    return {skipCheck(kFamilyNics, check, "node",
                      gigabytes(total) + " through the NICs during " + during +
                          ": too little to judge the split (collectives of one node stay on "
                          "NVLink/PCIe; run doctor on several nodes to load the rails)")};
  }
  const double mean = total / double(rails.size());
  std::vector<CheckResult> perRail;
  double worstDeviation = 0.0;
  const Rail* worst = nullptr;
  for (const Rail& rail : rails) {
    const double bytes = rail.xmit + rail.rcv;
    const double deviation = (bytes - mean) / mean;
    if (worst == nullptr || std::fabs(deviation) > std::fabs(worstDeviation)) {
      worst = &rail;
      worstDeviation = deviation;
    }
    const Verdict verdict = std::fabs(deviation) > threshold::kRailFailDeviation   ? Verdict::kFail
                            : std::fabs(deviation) > threshold::kRailWarnDeviation ? Verdict::kWarn
                                                                                   : Verdict::kPass;
    perRail.push_back(withValue(
        makeCheck(kFamilyNics, "rail-traffic", rail.port, verdict,
                  "xmit " + gigabytes(rail.xmit) + ", recv " + gigabytes(rail.rcv) + " (" +
                      (deviation >= 0 ? "+" : "") + formatNumber(deviation * 100, 0) + "% of the mean)",
                  "within " + formatNumber(threshold::kRailWarnDeviation * 100, 0) + "% of the mean " +
                      gigabytes(mean),
                  "a rail carrying more than its share is the one every rank waits for"),
        bytes, "B"));
  }
  const Verdict overall = std::max_element(perRail.begin(), perRail.end(),
                                           [](const CheckResult& a, const CheckResult& b) {
                                             return a.verdict < b.verdict;
                                           })->verdict;
  std::string measured = std::to_string(rails.size()) + " rails, " + gigabytes(total) + " during " +
                         during + "; most uneven " + worst->port + " at " +
                         (worstDeviation >= 0 ? "+" : "") + formatNumber(worstDeviation * 100, 0) +
                         "% of the mean";
  if (!unreadable.empty()) {
    measured += "; no usable counters on ";
    for (size_t i = 0; i < unreadable.size(); ++i) measured += (i ? ", " : "") + unreadable[i];
  }
  std::vector<CheckResult> checks = {makeCheck(
      kFamilyNics, check, "node", overall, measured,
      "every rail within " + formatNumber(threshold::kRailWarnDeviation * 100, 0) + "% of the mean",
      overall == Verdict::kPass
          ? "collectives stripe traffic over all rails; an uneven split caps them at the busiest rail"
          : "traffic is piled onto some rails: the collective runs at the pace of the busiest one; "
            "check NCCL_IB_HCA order and count against the GPUs, the NICs' PCIe placement "
            "(nic-locality), and the switches' routing")};
  checks.insert(checks.end(), perRail.begin(), perRail.end());
  return checks;
}

}  // namespace doctor
}  // namespace flashccl
