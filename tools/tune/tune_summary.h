// Everything one `flashccl tune` found, as the report (tune_report.h) and the JSON record
// (tune_record.h) present it.
#pragma once

#include <string>
#include <vector>

#include "band_picker.h"
#include "candidates.h"
#include "selection_decision.h"
#include "topo/table_measurement.h"
#include "sweep_results.h"
#include "table_verify.h"
#include "tune_options.h"
#include "tuning_xml.h"

namespace flashccl {
namespace tune {

struct CollectiveOutcome {
  CollectiveResults results;
  std::vector<SizeDecision> decisions;
  std::vector<Band> bands;
  // flashccl's own algorithms against NCCL's default (selection_decision.h): the <selection> rows.
  std::vector<SelectionDecision> selection;
  std::vector<SelectionBand> selectionBands;
};

struct TuneSummary {
  // Facts about the run.
  std::string machine;
  std::string date;
  std::string ncclVersion;
  std::string flashcclVersion;
  std::string command;
  std::string pluginPath;
  int ranks = 0;
  int nodes = 0;
  const TuneOptions* options = nullptr;
  std::vector<NcclChoice> candidates;
  // What was found and decided.
  std::vector<SweepRun> runs;
  std::vector<CollectiveOutcome> collectives;
  std::string tablePath;  // where the table was written ("" when it was not)
  std::string tableText;
  int tableRows = 0;
  bool verified = false;  // the run with the table was checked against NCCL's log
  VerifyResult verify;
  TableMeasurement measurement;  // what the calibrated table records (Session::machine, the record's facts)
  std::string installedPath;     // where --install wrote the whole table ("" when it did not)
  std::string installedReport;   // its markdown report, beside it
  std::vector<std::string> wrongResults;  // flashccl runs whose results were wrong
  std::vector<std::string> notes;         // one line each, at the end of the report
};

// The rows of the table: one per band, in collective order.
std::vector<TableRow> tableRows(const std::vector<CollectiveOutcome>& collectives,
                                       const std::vector<NcclChoice>& candidates);

}  // namespace tune
}  // namespace flashccl
