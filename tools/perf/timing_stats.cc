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

namespace {

// The p-quantile of sorted values, interpolating between neighbours (numpy's default).
double quantile(const std::vector<double>& sorted, double p) {
  const double at = p * static_cast<double>(sorted.size() - 1);
  const size_t low = static_cast<size_t>(std::floor(at));
  const size_t high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (at - static_cast<double>(low)) * (sorted[high] - sorted[low]);
}

}  // namespace

double Spread::rangePercent() const { return median > 0.0 ? 100.0 * (max - min) / median : 0.0; }

Spread spreadOf(std::vector<double> values) {
  Spread spread;
  if (values.empty()) return spread;
  std::sort(values.begin(), values.end());
  spread.min = values.front();
  spread.q1 = quantile(values, 0.25);
  spread.median = quantile(values, 0.5);
  spread.q3 = quantile(values, 0.75);
  spread.max = values.back();
  return spread;
}

PairedSummary summarizePairs(const std::vector<double>& ncclMicros, const std::vector<double>& flashcclMicros) {
  PairedSummary summary;
  const size_t pairs = std::min(ncclMicros.size(), flashcclMicros.size());
  std::vector<double> ratios;
  for (size_t i = 0; i < pairs; ++i)
    if (flashcclMicros[i] > 0.0) ratios.push_back(ncclMicros[i] / flashcclMicros[i]);
  summary.nccl = spreadOf(std::vector<double>(ncclMicros.begin(), ncclMicros.begin() + pairs));
  summary.flashccl = spreadOf(std::vector<double>(flashcclMicros.begin(), flashcclMicros.begin() + pairs));
  summary.speedup = median(ratios);
  if (!ratios.empty()) {
    summary.speedupMin = *std::min_element(ratios.begin(), ratios.end());
    summary.speedupMax = *std::max_element(ratios.begin(), ratios.end());
  }
  return summary;
}

std::vector<double> combineRanks(const std::vector<std::vector<double>>& perRank, int average) {
  if (perRank.empty()) return {};
  if (average == 0) return perRank.front();
  std::vector<double> combined = perRank.front();
  for (size_t r = 1; r < perRank.size(); ++r) {
    for (size_t i = 0; i < combined.size() && i < perRank[r].size(); ++i) {
      const double t = perRank[r][i];
      if (average == 1) combined[i] += t;
      else if (average == 2) combined[i] = std::min(combined[i], t);
      else combined[i] = std::max(combined[i], t);
    }
  }
  if (average == 1)
    for (double& t : combined) t /= static_cast<double>(perRank.size());
  return combined;
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
