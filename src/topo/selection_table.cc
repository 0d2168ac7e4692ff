#include "topo/selection_table.h"

namespace flashccl {

bool SelectionRow::matches(CollKind k, int ranks, int nodes, size_t bytes) const {
  if (k != kind) return false;
  if (nranks != 0 && nranks != ranks) return false;
  if (nnodes != 0 && nnodes != nodes) return false;
  if (bytes < minBytes) return false;
  if (maxBytes != 0 && bytes > maxBytes) return false;
  return true;
}

const SelectionRow* SelectionTable::firstMatch(CollKind k, int ranks, int nodes, size_t bytes) const {
  for (const SelectionRow& row : rows) {
    if (row.matches(k, ranks, nodes, bytes)) return &row;
  }
  return nullptr;
}

}  // namespace flashccl
