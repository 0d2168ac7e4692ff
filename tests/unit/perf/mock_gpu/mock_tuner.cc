#include "mock_tuner.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "base/coll_call.h"
#include "forced_choice.h"
#include "topo/topology_file.h"
#include "tuning_file.h"
#include "tuning_table.h"

namespace mocktuner {

namespace {

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::map<std::string, int> parseDelays(const std::string& text) {
  std::map<std::string, int> delays;
  std::istringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t equals = item.find('=');
    if (equals != std::string::npos) delays[item.substr(0, equals)] = std::atoi(item.c_str() + equals + 1);
  }
  return delays;
}

struct State {
  std::map<std::string, int> ncclDelays = parseDelays(variable("MOCK_TUNER_DELAYS"));
  std::map<std::string, int> flashcclDelays = parseDelays(variable("MOCK_FLASHCCL_DELAYS"));
  std::string refused = "," + variable("MOCK_TUNER_REFUSED") + ",";
  bool pluginLoaded = !variable("NCCL_TUNER_PLUGIN").empty();
  flashccl::TuningTable table;
  std::string origin;
  flashccl::TopologyDescription topology;  // FLASHCCL_TOPO_FILE's, for flashccl's own choice
  bool haveTopology = false;
  int level = 0;  // 0 none, 2 WARN, 3 INFO
  bool subsysInit = false, subsysTuning = false;
  std::string logPath;
  std::mutex mutex;
  std::set<std::string> warned;
  FILE* log = nullptr;

  State() {
    const std::string debug = variable("NCCL_DEBUG");
    level = debug == "INFO" ? 3 : debug == "WARN" ? 2 : 0;
    const std::string subsys = variable("NCCL_DEBUG_SUBSYS");
    subsysInit = subsys.empty() || subsys.find("INIT") != std::string::npos;
    subsysTuning = subsys.find("TUNING") != std::string::npos;
    std::string error;
    bool hasSection = false;
    if (pluginLoaded && !variable("FLASHCCL_TUNER_FORCE").empty()) {
      flashccl::parseForcedChoice(variable("FLASHCCL_TUNER_FORCE"), &table, &error);
      origin = "FLASHCCL_TUNER_FORCE=" + variable("FLASHCCL_TUNER_FORCE");
    } else if (pluginLoaded && !variable("FLASHCCL_TUNER_FILE").empty()) {
      flashccl::parseTuningFile(variable("FLASHCCL_TUNER_FILE"), &table, &hasSection, &error);
      origin = "FLASHCCL_TUNER_FILE=" + variable("FLASHCCL_TUNER_FILE");
    }
    if (!variable("FLASHCCL_TOPO_FILE").empty())
      haveTopology = flashccl::parseTopologyFile(variable("FLASHCCL_TOPO_FILE"), &topology, &error);
    // NCCL_DEBUG_FILE's %h and %p, as NCCL expands them.
    logPath = variable("NCCL_DEBUG_FILE");
    for (size_t at; (at = logPath.find("%h")) != std::string::npos;) logPath.replace(at, 2, "mockhost");
    for (size_t at; (at = logPath.find("%p")) != std::string::npos;) logPath.replace(at, 2, std::to_string(getpid()));
  }

  void write(const std::string& line) {
    if (!log) log = logPath.empty() ? stdout : std::fopen(logPath.c_str(), "a");
    if (!log) return;
    std::fprintf(log, "mockhost:%d:%d [0] NCCL %s\n", getpid(), getpid(), line.c_str());
    std::fflush(log);
  }
};

State& state() {
  static State s;
  return s;
}

// NCCL's spelling in its per-call line.
std::string upper(const std::string& text) {
  std::string out;
  for (char c : text) out += char(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

const char* ncclFunction(const std::string& coll) {
  return coll == "allreduce" ? "AllReduce" : coll == "allgather" ? "AllGather" : "ReduceScatter";
}

}  // namespace

bool active() { return !variable("MOCK_TUNER_DELAYS").empty(); }

void onCommInit(int /*rank*/, int nranks) {
  State& s = state();
  if (!active() || !s.pluginLoaded || s.level < 3 || !(s.subsysInit || s.subsysTuning)) return;
  std::lock_guard<std::mutex> lock(s.mutex);
  int applying = 0;
  for (const flashccl::TuningRow& row : s.table.rows) applying += row.forCommunicator(nranks, 1);
  const std::string counts = std::to_string(nranks) + " ranks, 1 nodes";
  s.write("INFO TUNER/flashccl: flashccl tuner 0.0.0-mock: " +
          (s.table.rows.empty() ? "no table (mock); NCCL chooses for " + counts
                                : std::to_string(applying) + " of " + std::to_string(s.table.rows.size()) +
                                      " rows apply to " + counts + " (" + s.origin + ")"));
}

int ncclCallMicros(int rank, int nranks, const char* collective, size_t bytes) {
  State& s = state();
  std::string algorithm = "ring", protocol = "simple", key = "nccl";
  int channels = 8;
  int coll = 0;
  flashccl::parseCollectiveName(collective, &coll);
  const flashccl::TunedCall call{coll, bytes, 1, false};
  for (const flashccl::TuningRow& row : s.table.rows) {
    if (!row.forCommunicator(nranks, 1) || !row.matches(call)) continue;
    if (row.choosesAlgorithm()) {
      const std::string chosen = flashccl::algorithmName(row.algorithm);
      if (s.refused.find("," + std::string(collective) + ":" + chosen + ",") != std::string::npos) {
        std::lock_guard<std::mutex> lock(s.mutex);
        const bool first = s.warned.insert(std::string(collective) + row.source).second;
        if (first && s.level >= (s.table.forced ? 2 : 3) && s.subsysTuning)
          s.write(std::string(s.table.forced ? "WARN" : "INFO") + " TUNER/flashccl: " + collective + " " +
                  std::to_string(bytes) + " bytes: " + chosen + "/" + flashccl::protocolName(row.protocol) +
                  " is not available to this communicator (NCCL marks it unusable); NCCL's own choice is kept (" +
                  row.source + ")");
        break;
      }
      algorithm = chosen;
      protocol = flashccl::protocolName(row.protocol);
      key = algorithm + "/" + protocol;
    }
    if (row.channels > 0) {
      channels = row.channels;
      if (s.ncclDelays.count(key + "/" + std::to_string(channels))) key += "/" + std::to_string(channels);
    }
    break;
  }
  if (rank == 0 && s.level >= 3 && s.subsysTuning) {
    std::lock_guard<std::mutex> lock(s.mutex);
    const bool perRank = std::string(collective) != "allreduce";
    s.write("INFO " + std::string(ncclFunction(collective)) + ": " +
            std::to_string(perRank ? bytes / size_t(nranks) : bytes) + " Bytes -> Algo " + upper(algorithm) +
            " proto " + upper(protocol) + " channel{Lo..Hi}={0.." + std::to_string(channels - 1) + "}");
  }
  const auto found = s.ncclDelays.find(key);
  return found != s.ncclDelays.end() ? found->second : s.ncclDelays["nccl"];
}

int flashcclCallMicros(int nranks, const char* collective, size_t bytes, std::string* algorithm) {
  State& s = state();
  const std::string forced = variable("FLASHCCL_ALGO");
  std::istringstream items(forced);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos || item.substr(0, colon) != collective) continue;
    const auto found = s.flashcclDelays.find(item.substr(colon + 1));
    if (found == s.flashcclDelays.end()) {
      *algorithm = "NCCL";  // flashccl cannot run it here and forwards
      return s.ncclDelays["nccl"];
    }
    *algorithm = found->first;
    return found->second;
  }
  if (s.haveTopology) {
    for (const flashccl::SelectionRow& row : s.topology.table.rows) {
      const bool matches = collective == std::string(flashccl::collKindName(row.kind)) &&
                           (row.nranks == 0 || row.nranks == nranks) && bytes >= row.minBytes &&
                           (row.maxBytes == 0 || bytes <= row.maxBytes);
      if (!matches) continue;
      const auto found = s.flashcclDelays.find(row.algorithm);
      if (found == s.flashcclDelays.end()) break;  // "nccl", or an algorithm flashccl cannot run here
      *algorithm = found->first;
      return found->second;
    }
    *algorithm = "NCCL";
    return s.ncclDelays["nccl"];
  }
  *algorithm = "mock_selection";  // flashccl's own table's choice
  return s.flashcclDelays["selection"];
}

}  // namespace mocktuner
