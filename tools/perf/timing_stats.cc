#include "timing_stats.h"

#include <algorithm>
#include <cmath>

namespace flashccl {
namespace perf {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  if (values.size() % 2) return values[middle];
  return 0.5 * (values[middle - 1] + values[middle]);
}

PairedSummary summarizePairs(const std::vector<double>& ncclMicros,
                             const std::vector<double>& flashcclMicros) {
  PairedSummary summary;
  const size_t pairs = std::min(ncclMicros.size(), flashcclMicros.size());
  std::vector<double> ratios;
  for (size_t i = 0; i < pairs; ++i)
    if (flashcclMicros[i] > 0.0) ratios.push_back(ncclMicros[i] / flashcclMicros[i]);
  summary.ncclMicros = median(std::vector<double>(ncclMicros.begin(), ncclMicros.begin() + pairs));
  summary.flashcclMicros =
      median(std::vector<double>(flashcclMicros.begin(), flashcclMicros.begin() + pairs));
  summary.speedup = median(ratios);
  if (!ratios.empty()) {
    summary.speedupMin = *std::min_element(ratios.begin(), ratios.end());
    summary.speedupMax = *std::max_element(ratios.begin(), ratios.end());
  }
  return summary;
}

std::vector<double> slowestRank(const std::vector<std::vector<double>>& perRank) {
  std::vector<double> slowest;
  for (const std::vector<double>& times : perRank) {
    if (slowest.size() < times.size()) slowest.resize(times.size(), 0.0);
    for (size_t i = 0; i < times.size(); ++i) slowest[i] = std::max(slowest[i], times[i]);
  }
  return slowest;
}

double geometricMean(const std::vector<double>& values) {
  double logSum = 0.0;
  int count = 0;
  for (double v : values) {
    if (v > 0.0) {
      logSum += std::log(v);
      ++count;
    }
  }
  return count ? std::exp(logSum / count) : 0.0;
}

}  // namespace perf
}  // namespace flashccl
