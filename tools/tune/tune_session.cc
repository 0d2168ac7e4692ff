#include "tune_session.h"

#include <limits.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "calibrated_table.h"
#include "perf_options.h"
#include "selection_report.h"
#include "selection_verify.h"
#include "topo/topology_file.h"
#include "sweep_runner.h"
#include "tune_record.h"
#include "tune_report.h"
#include "tune_summary.h"
#include "tuning_file.h"
#include "tuning_xml.h"

namespace flashccl {
namespace tune {

namespace {

// What every run of a session shares: its options, how perf is started, where runs write.
SweepContext sweepContextOf(const Session& session) {
  SweepContext context;
  context.options = &session.options;
  context.launcher = session.launcher;
  context.workDirectory = session.workDirectory;
  context.pluginPath = session.pluginPath;
  context.readsRecords = session.readsRecords;
  context.progress = session.progress;
  return context;
}

std::string absolutePath(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

std::string commandOf(const TuneOptions& options) {
  // perf's quoting, under tune's name.
  return "flashccl tune" + perf::quotedCommand(options.arguments).substr(std::string("flashccl perf").size());
}

// The first baseline's record and plugin line: the run's facts (rank 0 holds them).
const SweepRun* firstBaseline(const std::vector<SweepRun>& runs) {
  for (const SweepRun& run : runs)
    if (run.plan.kind == RunKind::kBaseline && run.outcome.haveRecord && !run.outcome.log.inits.empty()) return &run;
  return nullptr;
}

std::vector<std::string> provenance(const TuneSummary& s) {
  const TuneOptions& o = *s.options;
  std::vector<std::string> lines = {
      "Written by flashccl tune " + s.flashcclVersion + " on " + s.machine + ", " + s.date + ": " +
          std::to_string(s.ranks) + " ranks, " + std::to_string(s.nodes) + (s.nodes == 1 ? " node" : " nodes") +
          " (as NCCL counts them), NCCL " +
          s.ncclVersion + ".",
      "Command: " + s.command};
  if (o.pick == PickRule::kFastest) {
    lines.push_back("Picked with --pick fastest: the fastest forced choice at every size, whatever NCCL's "
                    "default measured. For checking that NCCL applies a table; not a measurement to ship.");
  } else {
    char line[256];
    std::snprintf(line, sizeof(line),
                  "A row is a band of sizes where a forced choice beat NCCL's default (%d runs) by more than "
                  "the measured spread + %.1f%%; other sizes stay with NCCL.",
                  o.baselineRuns, o.marginPercent);
    lines.push_back(line);
  }
  lines.push_back("Sizes in nccl-tests' terms (NCCL's nBytes), " + sizeText(o.sizes.minBytes) + " to " +
                  sizeText(o.sizes.maxBytes) + " in steps of x" + std::to_string(o.sizes.stepFactor) + ", " +
                  perf::dataTypeName(o.dataType) + ".");
  if (!o.jsonPath.empty()) lines.push_back("Record: " + o.jsonPath);
  return lines;
}

// --install: the whole table (flashccl's rows, NCCL's, what they were measured on) and its
// markdown report, in the directory the library searches. The text is parsed with the library's
// own parser first: what is installed is what the next job will read.
bool installTable(const Session& session, TuneSummary* summary, const std::vector<TableRow>& tuningRows,
                  const TableFacts& facts, std::ostream& err) {
  const TuneOptions& o = session.options;
  CalibratedTable table;
  table.measurement = summary->measurement;
  table.name = calibratedTableName(table.measurement, summary->ranks, summary->nodes);
  table.measuredLabel = o.pick == PickRule::kFastest
                            ? "flashccl tune --pick fastest (a test table: every size's fastest flashccl algorithm)"
                            : "flashccl tune " + summary->date;
  table.algorithms = o.flashcclAlgorithms;
  table.tuning = tuningRows;
  table.facts = facts;
  for (const CollectiveOutcome& c : summary->collectives)
    table.selection.push_back({c.results.collective, c.selectionBands});
  const std::string text = calibratedTableText(table);
  const std::string path = session.installDirectory + "/" + table.name + ".xml";
  TopologyDescription check;
  std::string error;
  if (!parseTopologyText(text, path, &check, &error)) {
    err << "flashccl tune: the calibrated table does not parse (a bug; nothing installed): " << error << "\n";
    return false;
  }
  const std::string reportPath = session.installDirectory + "/" + table.name + ".md";
  if (!writeFileAtomically(path, text, &error) ||
      !writeFileAtomically(reportPath, selectionMarkdown(*summary), &error)) {
    err << "flashccl tune: --install: " << error << "\n";
    return false;
  }
  summary->installedPath = path;
  summary->installedReport = reportPath;
  return true;
}

bool writeRecord(const TuneSummary& summary, std::ostream& err) {
  const std::string& path = summary.options->jsonPath;
  if (path.empty()) return true;
  std::string error;
  if (writeFileAtomically(path, tuneRecordToJson(summary).dump(1) + "\n", &error)) return true;
  err << "flashccl tune: " << error << "\n";
  return false;
}

}  // namespace

bool writeFileAtomically(const std::string& path, const std::string& text, std::string* error) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file || !(file << text) || !file.flush()) {
      *error = "cannot write " + path + ": " + std::strerror(errno);
      std::remove(temporary.c_str());
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

int runSweepSession(const Session& session, std::ostream& out, std::ostream& err) {
  const TuneOptions& o = session.options;
  TuneSummary summary;
  summary.options = &o;
  summary.candidates = o.ncclCandidates();
  summary.pluginPath = session.pluginPath;
  summary.command = commandOf(o);
  const std::vector<PlannedRun> plan = planSweep(o, summary.candidates);

  const SweepContext context = sweepContextOf(session);
  if (session.progress) {
    // Before the first run: a sweep that would not fit the user's budget can be stopped now.
    err << "flashccl tune: " << plan.size() << " perf runs (" << o.flashcclAlgorithms.size()
        << " flashccl algorithms, " << summary.candidates.size() << " NCCL choices, " << tuneSizes(o).size()
        << " sizes); predicted " << durationText(predictedSeconds(o, plan))
        << " (a model: docs/tuner.md, 6.3)\n";
    err.flush();
  }
  std::string error;
  if (!runPlanned(context, plan, 0, plan.size(), &summary.runs, &summary.wrongResults, &error)) {
    err << "flashccl tune: " << error << "\n";
    return 1;
  }
  if (!session.readsRecords) return 0;  // rank 0 decides and writes

  const SweepRun* baseline = firstBaseline(summary.runs);
  if (!baseline) {
    err << "flashccl tune: no baseline run left a record and the plugin's line (" << session.workDirectory << ")\n";
    return 1;
  }
  const perf::RunInfo& info = baseline->outcome.record.info;
  summary.machine = info.machine;
  summary.date = info.date;
  summary.ncclVersion = info.ncclVersion;
  summary.flashcclVersion = info.flashcclVersion;
  summary.ranks = baseline->outcome.log.inits.front().ranks;
  summary.nodes = baseline->outcome.log.inits.front().nodes;

  summary.measurement = session.machine;
  summary.measurement.nccl = info.ncclVersion;
  if (!info.flashcclVersion.empty()) summary.measurement.flashccl = info.flashcclVersion;
  summary.measurement.commit = info.flashcclCommit;
  summary.measurement.date = info.date;
  summary.measurement.command = summary.command;
  std::vector<std::string> algorithmNames;
  for (const FlashcclAlgorithm& a : o.flashcclAlgorithms) algorithmNames.push_back(a.name);

  auto decide = [&] {
    summary.collectives.clear();
    for (const CollectiveResults& results :
         collectResults(o.collectives, tuneSizes(o), o.dataType, summary.runs)) {
      CollectiveOutcome c;
      c.results = results;
      std::vector<SizePoint> points;
      for (const SizeResults& size : results.sizes) points.push_back(size.point);
      c.decisions = decideSizes(points, o.marginPercent / 100.0, o.pick);
      c.bands = mergeBands(c.decisions);
      c.selection = decideSelection(collectSelection(results.collective, tuneSizes(o), summary.runs,
                                                     o.flashcclAlgorithms),
                                    o.marginPercent / 100.0, o.pick, algorithmNames);
      c.selectionBands = selectionBands(c.selection);
      summary.collectives.push_back(c);
    }
  };
  decide();

  const std::vector<TableRow> rows = tableRows(summary.collectives, summary.candidates);
  TableFacts facts;
  facts.ranks = summary.ranks;
  facts.nodes = summary.nodes;
  facts.provenance = provenance(summary);
  std::string text;
  if (session.intoText.empty()) {
    text = tuningFile(rows, facts);
  } else if (!mergeIntoFile(session.intoText, o.intoPath, rows, o.collectives, facts, &text, &error)) {
    err << "flashccl tune: " << error << "\n";
    writeRecord(summary, err);
    return 1;
  }
  // What is written is what the plugin will read: parse it with the plugin's own parser first.
  TuningTable written;
  bool hasSection = false;
  if (!parseTuningText(text, o.outputPath, &written, &hasSection, &error)) {
    err << "flashccl tune: the table the sweep made does not parse (a bug; nothing written): " << error << "\n";
    return 1;
  }
  if (!writeFileAtomically(o.outputPath, text, &error)) {
    err << "flashccl tune: " << error << "\n";
    return 1;
  }
  summary.tablePath = o.outputPath;
  summary.tableText = text;
  summary.tableRows = int(rows.size());
  if (o.install && !installTable(session, &summary, rows, facts, err)) {
    writeRecord(summary, err);
    return 1;
  }

  int status = summary.wrongResults.empty() ? 0 : 1;
  if (o.launched) {
    summary.notes.push_back("--launched: only rank 0 has the table. To measure it and check that NCCL applies it, "
                            "copy it to every node and run the same launcher with: flashccl tune --launched "
                            "--verify " + o.outputPath + " (and the same -b -e -f --coll)");
  } else if (rows.empty()) {
    summary.notes.push_back("no row, so no run with the table");
  } else if (o.afterRun) {
    const std::string tablePath = absolutePath(o.outputPath);
    const size_t next = summary.runs.size();
    std::vector<PlannedRun> after = {withTableRun(o, tablePath), verifyRun(o, tablePath)};
    for (size_t i = 0; i < after.size(); ++i) after[i].slug = runSlug(next + i, after[i].label);
    std::vector<SweepRun> afterRuns = summary.runs;
    if (!runPlanned(context, after, next, next + after.size(), &afterRuns, &summary.wrongResults, &error)) {
      err << "flashccl tune: " << error << "\n";
      status = 1;
    }
    summary.runs = afterRuns;
    for (const SweepRun& run : summary.runs) {
      if (run.plan.kind != RunKind::kVerify) continue;
      summary.verified = true;
      summary.verify = verifyTable(written, run.outcome.log);
      if (!summary.verify.passed()) status = 1;
    }
    decide();  // again, now with the table's column
  }
  out << formatReport(summary);
  out.flush();
  if (!writeRecord(summary, err)) status = 1;
  return status;
}

// An empty <tuning> section is checked only when there is no selection to check: a tuning-only
// table without rows fails as it always did ("no row applies"), while a calibrated table whose
// sweep kept no NCCL choice is checked for its selection alone.
bool readVerifyTable(const std::string& path, Session* session, std::string* problem) {
  bool hasTuning = false;
  std::string tuningError;
  const bool tuningParsed = parseTuningFile(path, &session->verifyTable, &hasTuning, &tuningError);
  std::string topologyError;
  const bool topologyParsed = parseTopologyFile(path, &session->verifyTopology, &topologyError);
  for (const SelectionRow& row : session->verifyTopology.table.rows)
    if (topologyParsed && row.algorithm != "nccl") session->verifySelection = true;
  if (!tuningParsed) {
    *problem = tuningError;
    return false;
  }
  // FLASHCCL_UNMEASURED's true words as the library reads them (parseBool, base/config.cc, is in
  // flashccl_core, which tune's logic does not link); the perf runs inherit the variable.
  const char* arm = std::getenv("FLASHCCL_UNMEASURED");
  session->armsUnmeasured = false;
  for (const char* word : {"1", "true", "yes", "on", "y"})
    if (arm && strcasecmp(arm, word) == 0) session->armsUnmeasured = true;
  const std::string unmeasured = topologyParsed ? unmeasuredSelection(session->verifyTopology) : "";
  if (session->verifySelection && !unmeasured.empty() && !session->armsUnmeasured) {
    // Rows the library does not arm cannot stop winning: there is nothing to re-measure.
    session->verifySelection = false;
    session->verifyNote = path + "'s <selection> counts as unmeasured (" + unmeasured +
                          "): the library arms none of its rows unless FLASHCCL_UNMEASURED=1, so they are not "
                          "re-measured";
    if (!hasTuning) {
      *problem = session->verifyNote + ", and it has no <tuning> section: nothing to check";
      return false;
    }
  }
  // Without a <tuning> section only the selection is left to check: why it cannot be read.
  if (!hasTuning && !topologyParsed) {
    *problem = topologyError;
    return false;
  }
  if (!hasTuning && !session->verifySelection) {
    *problem = path + " has no <tuning> section and no <selection> row naming a flashccl algorithm";
    return false;
  }
  session->verifyTuning = hasTuning && (!session->verifyTable.rows.empty() || !session->verifySelection);
  return true;
}

int runVerifySession(const Session& session, std::ostream& out, std::ostream& err) {
  const TuneOptions& o = session.options;
  const SweepContext context = sweepContextOf(session);
  const std::string tablePath = absolutePath(o.verifyPath);
  std::vector<PlannedRun> plan;
  if (session.verifyTuning) plan.push_back(verifyRun(o, tablePath));
  const SelectionToMeasure measure =
      session.verifySelection ? selectionToMeasure(session.verifyTopology.table, session.ranks, o) : SelectionToMeasure();
  const std::vector<PlannedRun> selection = selectionRuns(measure, o, tablePath);
  plan.insert(plan.end(), selection.begin(), selection.end());
  for (size_t i = 0; i < plan.size(); ++i) plan[i].slug = runSlug(i, plan[i].label);
  std::vector<SweepRun> runs;
  std::vector<std::string> wrong;
  std::string error;
  if (!runPlanned(context, plan, 0, plan.size(), &runs, &wrong, &error)) {
    err << "flashccl tune: " << error << "\n";
    return 1;
  }
  if (!session.readsRecords) return 0;
  int status = 0;
  if (!session.verifyNote.empty()) out << "# note: " << session.verifyNote << "\n";
  if (session.verifyTuning) {
    const VerifyResult result = verifyTable(session.verifyTable, runs.front().outcome.log);
    out << formatVerify(result, o.verifyPath);
    if (!result.passed()) status = 1;
  }
  if (session.verifySelection) {
    SelectionVerifyResult result;
    if (selection.empty()) {
      result.ranks = session.ranks;
      result.problems.push_back(measure.collectives.empty()
                                    ? "no <selection> row of the table is for " + std::to_string(session.ranks) +
                                          " ranks and a collective of --coll"
                                    : "no band of the table's <selection> rows for " + std::to_string(session.ranks) +
                                          " ranks reaches a size within -b/-e");
    } else {
      result = verifySelection(session.verifyTopology, runs, o, session.armsUnmeasured);
    }
    out << formatSelectionVerify(result, o.verifyPath);
    if (!result.passed()) status = 1;
  }
  return status;
}

}  // namespace tune
}  // namespace flashccl
