// Turning timed blocks into the numbers in the table. Each size is timed as R pairs of blocks (one
// NCCL block and one flashccl block, back to back, the order alternating from pair to pair), and the
// speedup is the median of the per-pair ratios: a machine that slows down for a moment slows both
// halves of a pair, so the ratio of that pair survives, and the median discards the odd pair out.
#pragma once

#include <vector>

namespace flashccl {
namespace perf {

double median(std::vector<double> values);  // 0 for an empty list; mean of the middle two if even

struct PairedSummary {
  double ncclMicros = 0.0;      // median NCCL time per operation
  double flashcclMicros = 0.0;  // median flashccl time per operation
  double speedup = 0.0;         // median over pairs of ncclMicros[i] / flashcclMicros[i]
  double speedupMin = 0.0;      // the spread of the per-pair ratios, for the JSON
  double speedupMax = 0.0;
};

// Both vectors hold one per-operation time per pair (same length).
PairedSummary summarizePairs(const std::vector<double>& ncclMicros,
                             const std::vector<double>& flashcclMicros);

// Elementwise maximum of several ranks' block times: a collective is as slow as its slowest rank
// (nccl-tests reports the same way with -a 3). `perRank` holds one vector per rank, equal lengths.
std::vector<double> slowestRank(const std::vector<std::vector<double>>& perRank);

double geometricMean(const std::vector<double>& values);  // over the positive values; 0 if none

}  // namespace perf
}  // namespace flashccl
