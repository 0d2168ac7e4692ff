// The perf runs of one `flashccl tune`, in order, and what each one sets. Every run is a whole
// `flashccl perf` (fresh communicators) measuring every collective it covers at every size, so
// NCCL's default is measured the same way as each forced choice, in the same sweep:
//
//   baseline     the plugin loaded with FLASHCCL_TUNER_FORCE=nccl (it touches nothing): NCCL's
//                default, and flashccl's own choice in perf's flashccl column. --baseline-runs of
//                them, the first first, the last last, the others evenly between, so a machine
//                that drifts during the sweep shows as run-to-run spread.
//   choice       FLASHCCL_TUNER_FORCE=<algorithm>:<protocol>[:<channels>] for every collective;
//                the plugin WARNs (NCCL_DEBUG=WARN, subsystem TUNING) for each collective NCCL
//                cannot run it on, and that collective's times are not the choice's.
//   flashccl     FLASHCCL_ALGO=<collective>:<algorithm>,... (one algorithm per collective and run),
//                FLASHCCL_TUNER_FORCE=nccl: flashccl's column is that algorithm, NCCL's column
//                another measurement of the default.
//   with table   FLASHCCL_TUNER_FILE=<the written table>: the "with table" column.
//   verify       the same, one short block per size, NCCL_DEBUG=INFO with subsystem TUNING: NCCL's
//                log of every call, checked against the table's rows.
//   selection    --verify of a table with <selection> rows: FLASHCCL_TOPO_FILE=<the table> (the
//                library uses exactly that file), FLASHCCL_TUNER_FORCE=nccl (NCCL's default, as the
//                sweep measured it): flashccl's column is what the table's rows chose, NCCL's the
//                default they must still beat; fp32 and bf16, in place and out of place.
//
// The plan is fixed by the options alone, never by what a run found, so that under --launched
// every rank starts the same perf runs in the same order.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "candidates.h"
#include "perf_types.h"
#include "tune_options.h"

namespace flashccl {
namespace tune {

enum class RunKind { kBaseline, kChoice, kFlashccl, kWithTable, kVerify, kSelection };

// How much NCCL logs in a run (NCCL_DEBUG, NCCL_DEBUG_SUBSYS).
enum class NcclLogging {
  kInit,            // INFO, INIT: the plugin's init line (it loaded; ranks and nodes), nothing per call
  kTunerWarnings,   // WARN, INIT,TUNING: the plugin's WARN for a forced choice NCCL refused
  kEveryCall,       // INFO, INIT,TUNING: NCCL's line for every call (too slow to time with)
};

struct PlannedRun {
  RunKind kind = RunKind::kBaseline;
  std::string label;                              // "baseline 1 of 2", "tree/ll, 2 channels"
  std::string slug;                               // for the run's directory: "03-tree-ll-2-channels"
  std::vector<perf::Collective> collectives;      // what perf measures
  int candidate = -1;                             // kChoice: index into the NCCL choices
  std::map<perf::Collective, std::string> flashccl;  // kFlashccl: the forced algorithm per collective
  std::map<std::string, std::string> environment;    // set for this run (besides the common ones)
  NcclLogging logging = NcclLogging::kInit;
  bool check = false;  // perf -c 1: flashccl's results against NCCL's
  bool short_ = false;  // one block pair of one iteration per size (verify)
  // -b and -e of this run when not the options' (0: the options'): a selection row's band end
  // that -f does not reach is measured alone.
  size_t minBytes = 0;
  size_t maxBytes = 0;
};

// A run's directory name: its number from 1, two digits at least, and what it is
// ("03-tree-ll-2-channels"), so the directories sort in run order.
std::string runSlug(size_t index, const std::string& label);

// The sweep: baselines, every NCCL choice, flashccl's algorithms.
std::vector<PlannedRun> planSweep(const TuneOptions& options, const std::vector<NcclChoice>& candidates);

// The runs with a written table: its timing (unless --no-after) and its check.
PlannedRun withTableRun(const TuneOptions& options, const std::string& tablePath);
PlannedRun verifyRun(const TuneOptions& options, const std::string& tablePath);
// --verify's measurement of a table's <selection> rows (kSelection) of `collectives`, from
// `minBytes` to `maxBytes` (-f steps them).
PlannedRun selectionRun(const std::string& tablePath, const std::vector<perf::Collective>& collectives,
                        size_t minBytes, size_t maxBytes);

// What the sweep is predicted to take, before it starts (a model, printed so a person can stop a
// sweep that would not fit their budget): kRunStartSeconds per perf run (processes, communicators,
// the plugin), and per timed or warm-up call kCallMicros plus bytes at kBytesPerMicro, for each
// library perf times (NCCL, flashccl), block pair, size, datatype and placement the run measures.
constexpr double kRunStartSeconds = 8.0;
constexpr double kCallMicros = 15.0;
constexpr double kBytesPerMicro = 50e3;  // 50 GB/s: a busbw well below NVLink's, so not optimistic
double predictedSeconds(const TuneOptions& options, const std::vector<PlannedRun>& plan);

// `flashccl perf` arguments for a run (after the program name): {"perf", "-b", ..., "-J", json}.
std::vector<std::string> perfArguments(const TuneOptions& options, const PlannedRun& run,
                                       const std::string& jsonPath);

// Variables a run sets; every other variable is the user's, less those that would change what is
// measured (FLASHCCL_TUNER_FORCE, FLASHCCL_TUNER_FILE, FLASHCCL_ALGO, NCCL_TUNER_PLUGIN,
// NCCL_DEBUG*: droppedVariables()).
std::map<std::string, std::string> runEnvironment(const PlannedRun& run, const std::string& pluginPath,
                                                  const std::string& ncclLogPattern);
const std::vector<std::string>& droppedVariables();

}  // namespace tune
}  // namespace flashccl
