#include "tune_summary.h"

namespace flashccl {
namespace tune {

std::vector<TableRow> tableRows(const std::vector<CollectiveOutcome>& collectives,
                                const std::vector<NcclChoice>& candidates) {
  std::vector<TableRow> rows;
  for (const CollectiveOutcome& c : collectives)
    for (const Band& band : c.bands)
      rows.push_back({c.results.collective, band.minBytes, band.maxBytes, candidates[size_t(band.winner)]});
  return rows;
}

}  // namespace tune
}  // namespace flashccl
