// The table `flashccl tune` writes, in the tuner plugin's format (docs/tuner.md, "The table
// format"; parsed by plugins/tuner/tuning_file.cc): a <tuning> section for one communicator shape
// (ranks, nodes), one <group> per collective, one <row> per band. Written alone (a file
// FLASHCCL_TUNER_FILE can name), or merged into a copy of a topology file (--into).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "candidates.h"
#include "perf_types.h"

namespace flashccl {
namespace tune {

struct TableRow {
  perf::Collective collective = perf::Collective::kAllReduce;
  size_t minBytes = 0;  // inclusive, both
  size_t maxBytes = 0;
  NcclChoice choice;
};

struct TableFacts {
  int ranks = 0;
  int nodes = 0;
  std::vector<std::string> provenance;  // comment lines: machine, NCCL, date, command, record
};

// "64K", "1M", "4G" when exact, else the plain number of bytes.
std::string sizeText(size_t bytes);

// Text that can stand in an XML comment ("--" may not).
std::string commentSafe(const std::string& text);

// The <tuning> element, its first line indented by `indent` spaces and the rest below it.
std::string tuningSection(const std::vector<TableRow>& rows, const TableFacts& facts, int indent);

// A file holding only the <tuning> section, with the provenance as a comment above it.
std::string tuningFile(const std::vector<TableRow>& rows, const TableFacts& facts);

// A copy of `text` (a topology file, or a tuning-only file; named `path` in messages) whose
// <tuning> rows for this communicator (the same collective among `measured`, exactly these ranks
// and nodes) are replaced by `rows`; other rows stay, after the new ones. Adds a <tuning> section
// when there is none. Everything else, comments and layout included, is kept. False with *error
// when the file is not one the plugin accepts, or the result would not be (rows that conflict).
bool mergeIntoFile(const std::string& text, const std::string& path, const std::vector<TableRow>& rows,
                   const std::vector<perf::Collective>& measured, const TableFacts& facts, std::string* merged,
                   std::string* error);

}  // namespace tune
}  // namespace flashccl
