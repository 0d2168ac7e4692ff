// The whole table `flashccl tune --install` writes (docs/topologies.md, "Calibrated tables"): a
// topology file that matches exactly this machine, records what it was measured on, and holds
// flashccl's <selection> rows (selection_decision.h) beside NCCL's <tuning> rows (tuning_xml.h),
// so the library and the tuner plugin follow one file.
#pragma once

#include <string>
#include <vector>

#include "candidates.h"
#include "perf_types.h"
#include "selection_decision.h"
#include "topo/table_measurement.h"
#include "tuning_xml.h"

namespace flashccl {
namespace tune {

struct SelectionRows {
  perf::Collective collective = perf::Collective::kAllReduce;
  std::vector<SelectionBand> bands;  // winners index `algorithms`
};

struct CalibratedTable {
  std::string name;               // calibratedTableName()
  TableMeasurement measurement;   // what the rows were measured on
  std::string measuredLabel;      // <selection measured="...">: how the rows were picked
  std::vector<SelectionRows> selection;
  std::vector<FlashcclAlgorithm> algorithms;
  std::vector<TableRow> tuning;   // NCCL's rows
  TableFacts facts;               // ranks, nodes, the provenance comment
};

// "nvidia-h200-x2-2ranks" (and "-2nodes" across nodes): one file per machine type and
// communicator shape, so calibrating 4 ranks does not replace the table for 2.
std::string calibratedTableName(const TableMeasurement& measurement, int ranks, int nodes);

// The file's text. Every collective in `selection` gets a group: its bands, then a row saying
// `nccl` for every other size.
std::string calibratedTableText(const CalibratedTable& table);

// `text` with &, <, >, " escaped, for an attribute value.
std::string xmlAttributeText(const std::string& text);

}  // namespace tune
}  // namespace flashccl
