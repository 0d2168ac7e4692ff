// Turning timed blocks into the numbers in the table. Each size is timed as R pairs of blocks (one
// NCCL block and one flashccl block, back to back, the order alternating from pair to pair). A
// library's time is the median of its R block times, and its spread the range and quartiles of
// them; the speedup is the median of the per-pair ratios: a machine that slows down for a moment
// slows both halves of a pair, so the ratio of that pair survives, and the median discards the odd
// pair out.
#pragma once

#include <vector>

namespace flashccl {
namespace perf {

double median(std::vector<double> values);  // 0 for an empty list; mean of the middle two if even

// Order statistics of one library's per-pair times (us per operation).
struct Spread {
  double min = 0.0;
  double q1 = 0.0;  // quartiles by linear interpolation between order statistics
  double median = 0.0;
  double q3 = 0.0;
  double max = 0.0;
  // (max - min) / median, in percent: how far apart the pairs were; 0 when median is 0.
  double rangePercent() const;
};
Spread spreadOf(std::vector<double> values);

struct PairedSummary {
  Spread nccl;
  Spread flashccl;
  double speedup = 0.0;     // median over pairs of nccl[i] / flashccl[i]
  double speedupMin = 0.0;  // the range of the per-pair ratios
  double speedupMax = 0.0;
};

// Both vectors hold one per-operation time per pair (same length).
PairedSummary summarizePairs(const std::vector<double>& ncclMicros, const std::vector<double>& flashcclMicros);

// One time per block from several ranks' times of it, as nccl-tests' -a: 0 rank 0, 1 mean, 2 min,
// 3 max. `perRank` holds one vector per rank, equal lengths.
std::vector<double> combineRanks(const std::vector<std::vector<double>>& perRank, int average);

double geometricMean(const std::vector<double>& values);  // over the positive values; 0 if none

}  // namespace perf
}  // namespace flashccl
