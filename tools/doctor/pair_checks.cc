#include "pair_checks.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "thresholds.h"

namespace flashccl {
namespace doctor {

namespace {

struct Metric {
  const char* check;       // "copy-engine", "sm-store", "latency"
  const char* unit;
  double PairMeasurement::*field;
  bool higherIsBetter;
  double warnRatio;        // of the path's raw rate (bandwidths)
  double floor;            // --expect floor (bandwidths) or ceiling (latency); 0 = none
  const char* why;
};

double median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

std::string amount(double value, const Metric& metric) {
  return formatNumber(value, metric.higherIsBetter ? 1 : 2) + " " + metric.unit;
}

std::string pairName(const PairMeasurement& pair, const std::vector<std::string>& labels) {
  return labels.at(size_t(pair.from)) + " -> " + labels.at(size_t(pair.to));
}

// The absolute expectation of one pair, as text, and the verdict of `value` against it.
Verdict absoluteVerdict(const Metric& metric, const PairMeasurement& pair, double value,
                        std::string* expected) {
  if (metric.floor > 0.0) {
    *expected = (metric.higherIsBetter ? ">= " : "<= ") + amount(metric.floor, metric) + " (--expect)";
    const bool ok = metric.higherIsBetter ? value >= metric.floor : value <= metric.floor;
    return ok ? Verdict::kPass : Verdict::kFail;
  }
  if (!metric.higherIsBetter) {
    const double ceiling = pair.path.nvlink ? threshold::kNvlinkLatencyWarnMicros
                                            : threshold::kPcieLatencyWarnMicros;
    *expected = "<= " + amount(ceiling, metric) + " (" + (pair.path.nvlink ? "NVLink" : "PCIe") + ")";
    return value <= ceiling ? Verdict::kPass : Verdict::kWarn;
  }
  if (pair.path.rawGBps <= 0.0) {
    *expected = "within " + formatNumber(threshold::kPairMedianRatio * 100, 0) +
                "% of the median of " + pair.path.name + " pairs (link rate unknown)";
    return Verdict::kPass;
  }
  const double raw = pair.path.rawGBps;
  *expected = ">= " + amount(raw * metric.warnRatio, metric) + " (" +
              formatNumber(metric.warnRatio * 100, 0) + "% of " + pair.path.name + ": " +
              pair.path.rawSource + ")";
  return ratioVerdict(value, raw * metric.warnRatio, raw * threshold::kPairFailRatio);
}

void judgeMetric(const Metric& metric, const std::vector<PairMeasurement>& pairs,
                 const std::vector<std::string>& labels, std::vector<CheckResult>* checks) {
  std::map<std::string, std::vector<double>> byClass;
  std::vector<double> all;
  int unmeasured = 0;
  std::string unmeasuredWhy;
  for (const PairMeasurement& pair : pairs) {
    const double value = pair.*(metric.field);
    if (!std::isfinite(value)) {
      ++unmeasured;
      if (unmeasuredWhy.empty()) unmeasuredWhy = pair.note;
      continue;
    }
    byClass[pair.path.name].push_back(value);
    all.push_back(value);
  }
  const std::string subject = std::to_string(labels.size()) + " GPUs, " +
                              std::to_string(pairs.size()) + " ordered pairs";
  if (all.empty()) {
    checks->push_back(skipCheck(kFamilyPairs, metric.check, subject,
                                "no pair measured: " + (unmeasuredWhy.empty() ? std::string("-") : unmeasuredWhy)));
    return;
  }
  std::map<std::string, double> classMedian;
  for (const auto& entry : byClass) classMedian[entry.first] = median(entry.second);

  Verdict worst = Verdict::kPass;
  const PairMeasurement* slowest = nullptr;
  std::string slowestExpected;
  std::vector<CheckResult> pairChecks;
  for (const PairMeasurement& pair : pairs) {
    const double value = pair.*(metric.field);
    if (!std::isfinite(value)) continue;
    std::string expected;
    Verdict verdict = absoluteVerdict(metric, pair, value, &expected);
    std::string why;
    if (verdict != Verdict::kPass) {
      why = metric.higherIsBetter
                ? "slower than its path should carry: a link down or degraded, or traffic "
                  "taking a detour through host memory"
                : "slow to see a peer's store: the path crosses more hops than it should";
    }
    const double middle = classMedian[pair.path.name];
    const bool outlier = metric.higherIsBetter
                             ? value < threshold::kPairMedianRatio * middle
                             : value > threshold::kLatencyMedianFactor * middle;
    if (outlier && verdict == Verdict::kPass) {
      verdict = Verdict::kWarn;
      why = "an outlier among the " + pair.path.name + " pairs (median " + amount(middle, metric) +
            "): one link or switch port on this pair's path is weaker than the others";
    }
    const bool worse = slowest == nullptr ||
                       (metric.higherIsBetter ? value < slowest->*(metric.field)
                                              : value > slowest->*(metric.field));
    if (worse) {
      slowest = &pair;
      slowestExpected = expected;
    }
    worst = std::max(worst, verdict);
    if (verdict != Verdict::kPass) {
      pairChecks.push_back(withValue(makeCheck(kFamilyPairs, metric.check, pairName(pair, labels),
                                               verdict, amount(value, metric), expected, why),
                                     value, metric.unit));
    }
  }
  std::string measured = (metric.higherIsBetter ? "slowest " : "highest ") +
                         pairName(*slowest, labels) + ": " +
                         amount(slowest->*(metric.field), metric) + "; median " +
                         amount(median(all), metric) + " over " + std::to_string(all.size()) +
                         " pairs";
  if (unmeasured > 0) {
    measured += "; " + std::to_string(unmeasured) + " not measured (" + unmeasuredWhy + ")";
  }
  CheckResult summary = withValue(makeCheck(kFamilyPairs, metric.check, subject, worst, measured,
                                            slowestExpected, metric.why),
                                  slowest->*(metric.field), metric.unit);
  if (worst != Verdict::kPass) {
    summary.why = std::string(metric.why) + "; worst pair: " + pairName(*slowest, labels) +
                  " (the rows below name every pair that is off)";
  }
  checks->push_back(summary);
  checks->insert(checks->end(), pairChecks.begin(), pairChecks.end());
}

Matrix matrixOf(const Metric& metric, const std::vector<PairMeasurement>& pairs,
                const std::vector<std::string>& labels) {
  Matrix matrix;
  matrix.name = metric.check;
  matrix.unit = metric.unit;
  matrix.labels = labels;
  matrix.cells.assign(labels.size(), std::vector<double>(labels.size(), std::nan("")));
  for (const PairMeasurement& pair : pairs) {
    matrix.cells.at(size_t(pair.from)).at(size_t(pair.to)) = pair.*(metric.field);
  }
  return matrix;
}

}  // namespace

std::vector<CheckResult> judgePairs(const std::vector<PairMeasurement>& pairs,
                                    const std::vector<std::string>& gpuLabels,
                                    const Expectations& expectations,
                                    std::vector<Matrix>* matrices) {
  const Metric metrics[] = {
      {"copy-engine", "GB/s", &PairMeasurement::copyEngineGBps, true,
       threshold::kPairCopyEngineWarnRatio, expectations.pairCopyEngineGBps,
       "copy-engine peer copies are how NCCL's and flashccl's large transfers move between "
       "GPUs (and what nvbandwidth's memcpy tests measure)"},
      {"sm-store", "GB/s", &PairMeasurement::smStoreGBps, true, threshold::kPairSmStoreWarnRatio,
       expectations.pairSmStoreGBps,
       "kernels storing into a peer's memory is how flashccl's and NCCL's NVLink kernels move "
       "data"},
      {"latency", "us", &PairMeasurement::latencyMicros, false, 0.0,
       expectations.pairLatencyMicros,
       "one-way latency between GPUs is the floor of every small collective"},
  };
  std::vector<CheckResult> checks;
  for (const Metric& metric : metrics) {
    judgeMetric(metric, pairs, gpuLabels, &checks);
    if (matrices) matrices->push_back(matrixOf(metric, pairs, gpuLabels));
  }
  return checks;
}

}  // namespace doctor
}  // namespace flashccl
