// Selection tables: rows of (collective, ranks, nodes, byte range) -> algorithm.
//
// Nothing a rank may do differently from its peers picks a row: not in-place versus
// out-of-place (NCCL lets ranks differ there), not the stream. Every rank of a communicator must
// choose the same algorithm for the same call (docs/design.md, "Routing").
//
// Rows come from topologies/*.xml (see docs/topologies.md for the format) or from the built-in
// defaults. The Selector takes the first row that matches a call and whose algorithm supports
// it; no row means the built-in default for the collective, or NCCL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/coll_call.h"

namespace flashccl {

struct SelectionRow {
  CollKind kind = CollKind::kAllReduce;
  int nranks = 0;          // 0 = any
  int nnodes = 0;          // 0 = any
  size_t minBytes = 0;     // whole-buffer bytes (totalBytes()), inclusive
  size_t maxBytes = 0;     // inclusive; 0 = no upper bound
  std::string algorithm;   // built-in name, XML file name (relative to the algorithm dir) or "nccl"
  std::string source;      // "file.xml:12" or "built-in", for `flashccl plan` and logs
  // In a <group measured="no"> of a table that was measured: these rows were not, and they
  // forward to NCCL unless the user opts in (FLASHCCL_UNMEASURED=1), as an unmeasured table does.
  bool unmeasured = false;

  bool matches(CollKind k, int ranks, int nodes, size_t bytes) const;
};

struct SelectionTable {
  std::string name;  // topology or table name
  std::vector<SelectionRow> rows;
  // True when the rows were not measured on the machine class they describe (a topology file's
  // <selection measured="no">, or none given; the built-in table): such a table arms nothing
  // unless the user opts in (FLASHCCL_UNMEASURED=1). measuredBy: where they were measured.
  bool unmeasured = false;
  std::string measuredBy;
  // FNV-1a of the file's bytes (0: the built-in table). Ranks compare it at set-up: ranks that
  // found different tables stay on NCCL (docs/topologies.md, "Calibrated tables").
  uint64_t contentHash = 0;

  // First matching row, or nullptr.
  const SelectionRow* firstMatch(CollKind k, int ranks, int nodes, size_t bytes) const;
};

}  // namespace flashccl
