// One `flashccl tune` once its inputs are known to be usable (tune_main.cc checks them): the sweep,
// the decision, the table, the run with the table, the report and the record; or, with --verify,
// the check of a table alone. Takes its perf runs from a PerfLauncher, so it is tested end to end
// without a GPU.
#pragma once

#include <ostream>
#include <string>

#include "perf_launcher.h"
#include "progress_bar.h"
#include "tune_options.h"
#include "topo/table_measurement.h"
#include "topo/topology_file.h"
#include "tuning_table.h"

namespace flashccl {
namespace tune {

struct Session {
  TuneOptions options;
  std::string pluginPath;     // absolute
  std::string workDirectory;  // exists
  bool readsRecords = true;   // false: a rank other than 0 of --launched (it only runs perf)
  std::string intoText;       // --into's contents (checked)
  int ranks = 0;              // the perf runs' communicator (tune_main.cc's count)
  // --verify TABLE (checked): its <tuning> rows, checked against NCCL's log when verifyTuning; its
  // <selection> rows, re-measured when verifySelection (selection_verify.h).
  TuningTable verifyTable;
  bool verifyTuning = false;
  TopologyDescription verifyTopology;
  bool verifySelection = false;
  bool armsUnmeasured = false;  // FLASHCCL_UNMEASURED is on: the library arms unmeasured rows too
  std::string verifyNote;       // why the <selection> rows are not re-measured, when they are not
  TableMeasurement machine;   // what this machine and process are (measurementOf); the NCCL version,
                              // commit and date come from the sweep's first record
  std::string installDirectory;  // --install: where the whole table goes (exists, writable)
  PerfLauncher* launcher = nullptr;
  ProgressBar* progress = nullptr;
};

// Exit status: 0 done; 1 a run failed, a result was wrong, a file could not be written, or NCCL did
// not apply the table. The report goes to `out`, one-line problems to `err`.
int runSweepSession(const Session& session, std::ostream& out, std::ostream& err);
int runVerifySession(const Session& session, std::ostream& out, std::ostream& err);

// --verify TABLE: reads its <tuning> and <selection> rows into *session and says which checks
// run (verifyTuning, verifySelection). False with *problem when it cannot be read or has nothing
// to check.
bool readVerifyTable(const std::string& path, Session* session, std::string* problem);

// Writes `text` to `path` through a temporary file in the same directory and a rename, so a reader
// never sees half a table. False with *error.
bool writeFileAtomically(const std::string& path, const std::string& text, std::string* error);

}  // namespace tune
}  // namespace flashccl
