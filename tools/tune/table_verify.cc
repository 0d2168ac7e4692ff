#include "table_verify.h"

namespace flashccl {
namespace tune {

bool VerifyResult::passed() const {
  if (!problems.empty() || rows.empty()) return false;
  int checked = 0;
  for (const RowCheck& row : rows) {
    if (row.applied != row.calls) return false;
    checked += row.calls > 0;
  }
  return checked > 0;
}

VerifyResult verifyTable(const TuningTable& table, const NcclLog& log) {
  VerifyResult result;
  if (log.inits.empty()) {
    result.problems.push_back("NCCL did not load the tuner plugin (no 'TUNER/flashccl: flashccl tuner' line)");
    return result;
  }
  const PluginInit& init = log.inits.front();
  result.ranks = init.ranks;
  result.nodes = init.nodes;
  result.pluginSummary = init.summary;
  for (const std::string& warning : log.pluginWarnings) result.problems.push_back("the plugin warned: " + warning);
  std::vector<const TuningRow*> rows;
  for (const TuningRow& row : table.rows) {
    if (!row.forCommunicator(init.ranks, init.nodes)) continue;
    rows.push_back(&row);
    result.rows.push_back({row.source, describeChoice(row), 0, 0, ""});
  }
  if (rows.empty())
    result.problems.push_back("no row of the table applies to " + std::to_string(init.ranks) + " ranks, " +
                              std::to_string(init.nodes) + " nodes");
  result.callsLogged = int(log.calls.size());
  if (log.calls.empty())
    result.problems.push_back("NCCL logged no call's choice (with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING "
                              "it should; older releases print them as numbers, which this check does not read)");
  for (const CallChoice& call : log.calls) {
    int coll = 0;
    if (!parseCollectiveName(call.collective, &coll)) continue;
    // perf issues one operation per call on unregistered buffers.
    const TunedCall tuned{coll, tunerBytes(call, init.ranks), 1, false};
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i]->matches(tuned)) continue;
      RowCheck& check = result.rows[i];
      ++check.calls;
      const TuningRow& row = *rows[i];
      const bool choiceOk = !row.choosesAlgorithm() || (call.algorithm == algorithmName(row.algorithm) &&
                                                        call.protocol == protocolName(row.protocol));
      const bool channelsOk = row.channels == 0 || call.channels <= row.channels;
      if (choiceOk && channelsOk) {
        ++check.applied;
      } else if (check.firstMismatch.empty()) {
        check.firstMismatch = call.collective + " " + std::to_string(tuned.bytes) + " B ran " + call.algorithm +
                              "/" + call.protocol + " on " + std::to_string(call.channels) + " channels";
      }
      break;  // the first matching row decides, as in the plugin
    }
  }
  return result;
}

std::string formatVerify(const VerifyResult& result, const std::string& tablePath) {
  std::string text = "# NCCL's choices with " + tablePath + " (" + std::to_string(result.callsLogged) +
                     " calls logged";
  if (!result.pluginSummary.empty()) text += "; plugin: " + result.pluginSummary;
  text += ")\n";
  for (const RowCheck& row : result.rows) {
    if (row.calls == 0) {
      text += "SKIP  " + row.source + " " + row.choice + ": no call in its band at the sizes measured\n";
    } else if (row.applied == row.calls) {
      text += "PASS  " + row.source + " " + row.choice + ": " + std::to_string(row.calls) + " of " +
              std::to_string(row.calls) + " calls\n";
    } else {
      text += "FAIL  " + row.source + " " + row.choice + ": " + std::to_string(row.applied) + " of " +
              std::to_string(row.calls) + " calls; first: " + row.firstMismatch + "\n";
    }
  }
  for (const std::string& problem : result.problems) text += "FAIL  " + problem + "\n";
  text += result.passed() ? "# PASS: NCCL applies the table\n" : "# FAIL: NCCL does not apply the table as written\n";
  return text;
}

}  // namespace tune
}  // namespace flashccl
