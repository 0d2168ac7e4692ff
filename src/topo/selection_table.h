// Selection tables: rows of (collective, ranks, nodes, byte range, placement) -> algorithm.
//
// Rows come from topologies/*.xml (see docs/topologies.md for the format) or from the built-in
// defaults. The Selector takes the first row that matches a call and whose algorithm supports
// it; no row means the built-in default for the collective, or NCCL.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/coll_call.h"

namespace flashccl {

enum class Placement : int { kAny = 0, kInPlace = 1, kOutOfPlace = 2 };

struct SelectionRow {
  CollKind kind = CollKind::kAllReduce;
  int nranks = 0;          // 0 = any
  int nnodes = 0;          // 0 = any
  size_t minBytes = 0;     // whole-buffer bytes (totalBytes()), inclusive
  size_t maxBytes = 0;     // inclusive; 0 = no upper bound
  Placement placement = Placement::kAny;
  std::string algorithm;   // built-in name, XML file name (relative to the algorithm dir) or "nccl"
  std::string source;      // "file.xml:12" or "built-in", for `flashccl plan` and logs

  bool matches(CollKind k, int ranks, int nodes, size_t bytes, bool inPlace) const;
};

struct SelectionTable {
  std::string name;  // topology or table name
  std::vector<SelectionRow> rows;

  // First matching row, or nullptr.
  const SelectionRow* firstMatch(CollKind k, int ranks, int nodes, size_t bytes,
                                 bool inPlace) const;
};

}  // namespace flashccl
