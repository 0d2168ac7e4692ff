#include "report_json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "bandwidth.h"

namespace flashccl {
namespace perf {

using json = Json;

namespace {

// Times with a nanosecond's precision: more digits are noise, and they make records hard to diff.
double rounded(double value) { return std::isfinite(value) ? std::round(value * 1000.0) / 1000.0 : 0.0; }

json spreadJson(const Spread& s) {
  return {{"min_us", rounded(s.min)}, {"q1_us", rounded(s.q1)}, {"median_us", rounded(s.median)},
          {"q3_us", rounded(s.q3)}, {"max_us", rounded(s.max)}};
}

json libraryJson(const SizeResult& r, int nranks, const Spread& spread, const std::vector<double>& samples) {
  json samplesJson = json::array();
  for (double s : samples) samplesJson.push_back(rounded(s));
  return {{"time_us", rounded(spread.median)},
          {"algbw_gbps", rounded(algorithmBandwidth(r.bytes, spread.median))},
          {"busbw_gbps", rounded(busBandwidth(r.collective, nranks, r.bytes, spread.median))},
          {"spread", spreadJson(spread)},
          {"spread_percent", rounded(spread.rangePercent())},
          {"samples_us", samplesJson}};
}

json environmentJson(const std::vector<EnvSetting>& settings) {
  json env = json::object();
  for (const EnvSetting& e : settings) env[e.name] = e.set ? json(e.value) : json(nullptr);
  return env;
}

std::vector<EnvSetting> environmentFrom(const json& env) {
  std::vector<EnvSetting> settings;
  for (auto it = env.begin(); it != env.end(); ++it)
    settings.push_back({it.key(), !it.value().is_null(), it.value().is_null() ? "" : it.value().get<std::string>()});
  return settings;
}

std::vector<double> samplesFrom(const json& library) {
  return library.at("samples_us").get<std::vector<double>>();
}

}  // namespace

json reportToJson(const RunReport& report, bool complete) {
  const RunInfo& info = report.info;
  json devices = json::array();
  for (const DeviceInfo& d : info.devices)
    devices.push_back({{"rank", d.rank}, {"device", d.device}, {"pid", d.pid}, {"host", d.host},
                       {"bus_id", d.busId}, {"name", d.name}});
  json results = json::array();
  const int n = info.nranks();
  for (const SizeResult& r : report.results) {
    results.push_back({{"collective", collectiveName(r.collective)},
                       {"size_bytes", r.bytes},
                       {"count", r.count},
                       {"dtype", dataTypeName(r.dataType)},
                       {"op", reduceOpName(r.op)},
                       {"root", r.root},
                       {"in_place", r.placement == Placement::kInPlace},
                       {"cycle", r.cycle},
                       {"nccl", libraryJson(r, n, r.timing.nccl, r.ncclSamples)},
                       {"flashccl", libraryJson(r, n, r.timing.flashccl, r.flashcclSamples)},
                       {"speedup", rounded(r.timing.speedup)},
                       {"speedup_min", rounded(r.timing.speedupMin)},
                       {"speedup_max", rounded(r.timing.speedupMax)},
                       {"checked", r.checked},
                       {"wrong", r.checked ? json(r.wrong) : json(nullptr)},
                       {"check_rule", r.checkRule},
                       {"algorithm", r.algorithm}});
  }
  return {{"tool", "flashccl perf"},
          {"schema", kReportSchemaVersion},
          {"complete", complete},
          {"flashccl_version", info.flashcclVersion},
          {"flashccl_commit", info.flashcclCommit},
          {"nccl_version", info.ncclVersion},
          {"nccl_library", info.ncclLibrary},
          {"date", info.date},
          {"host", info.host},
          {"machine", info.machine},
          {"command", info.command},
          {"ranks", n},
          {"mode", info.layout.modeName()},
          {"processes", info.layout.processes},
          {"threads", info.layout.threads},
          {"gpus_per_thread", info.layout.gpusPerThread},
          {"devices", devices},
          {"environment", environmentJson(info.environment)},
          {"environment_set_by_perf", environmentJson(info.environmentSetByPerf)},
          {"settings",
           {{"min_bytes", info.minBytes}, {"max_bytes", info.maxBytes}, {"step_factor", info.stepFactor},
            {"step_bytes", info.stepBytes}, {"iters", info.iters}, {"warmup_iters", info.warmupIters},
            {"agg_iters", info.aggIters}, {"cycles", info.cycles}, {"pairs", info.pairs},
            {"graph_replays", info.graphReplays}, {"average", info.average}, {"blocking", info.blocking},
            {"cpu_time", info.cpuTime}, {"check", info.check}, {"seed", info.seed}}},
          {"results", results},
          {"wrong_total", report.totalWrong()}};
}

int reportSchema(const json& j) {
  if (!j.is_object() || !j.contains("schema")) return 1;
  return j.at("schema").is_number_integer() ? j.at("schema").get<int>() : -1;
}

bool reportFromJson(const json& j, RunReport* report, bool* complete, std::string* error) {
  try {
    if (!j.is_object() || !j.contains("tool") || j.at("tool") != "flashccl perf") {
      *error = "not a flashccl perf record (flashccl perf -J FILE writes one)";
      return false;
    }
    const int schema = reportSchema(j);
    if (schema != 1 && schema != kReportSchemaVersion) {
      *error = "a flashccl perf record of schema " + std::to_string(schema) + "; this flashccl reads schemas 1 and " +
               std::to_string(kReportSchemaVersion);
      return false;
    }
    // Schema 1 (the first records, bench/results/2026-11-30-*) lacks the fields schema 2 added;
    // they read as what those runs did. In schema 2 every field is required.
    const bool old = schema == 1;
    auto field = [old](const json& object, const char* key, const json& before) -> json {
      return old && !object.contains(key) ? before : object.at(key);
    };
    RunReport parsed;
    RunInfo& info = parsed.info;
    *complete = field(j, "complete", true).get<bool>();
    info.flashcclVersion = j.at("flashccl_version");
    info.flashcclCommit = field(j, "flashccl_commit", "not recorded (schema 1)").get<std::string>();
    info.ncclVersion = j.at("nccl_version");
    info.ncclLibrary = j.at("nccl_library");
    info.date = j.at("date");
    info.host = j.at("host");
    info.machine = j.at("machine");
    info.command = j.at("command");
    info.layout.processes = j.at("processes");
    info.layout.threads = j.at("threads");
    info.layout.gpusPerThread = j.at("gpus_per_thread");
    const std::string mode = j.at("mode");
    info.layout.launched = mode == "launched";
    info.layout.separateProcesses = mode == "processes" || info.layout.launched;
    info.layout.initAll = mode == "grouped";
    for (const json& d : j.at("devices"))
      info.devices.push_back({d.at("rank"), d.at("device"), d.at("pid"), d.at("host"), d.at("bus_id"), d.at("name")});
    info.environment = environmentFrom(j.at("environment"));
    info.environmentSetByPerf = environmentFrom(field(j, "environment_set_by_perf", json::object()));
    const json& s = j.at("settings");
    info.minBytes = s.at("min_bytes");
    info.maxBytes = s.at("max_bytes");
    info.stepFactor = s.at("step_factor");
    info.stepBytes = field(s, "step_bytes", 0).get<size_t>();
    info.iters = s.at("iters");
    info.warmupIters = s.at("warmup_iters");
    info.aggIters = field(s, "agg_iters", 1).get<int>();
    info.cycles = field(s, "cycles", 1).get<int>();
    info.pairs = s.at("pairs");
    info.graphReplays = old ? s.value("graph_replays", s.value("graph_ops", 0)) : s.at("graph_replays").get<int>();
    info.average = field(s, "average", 1).get<int>();
    info.blocking = field(s, "blocking", false).get<bool>();
    info.cpuTime = field(s, "cpu_time", false).get<bool>();
    info.check = s.at("check");
    info.seed = s.at("seed");
    for (const json& r : j.at("results")) {
      SizeResult result;
      std::string collective = r.at("collective");
      // Schema 1 spelt the collectives as nccl-tests' binaries are named: all_reduce.
      if (old) collective.erase(std::remove(collective.begin(), collective.end(), '_'), collective.end());
      if (!parseCollective(collective, &result.collective) ||
          !parseDataType(r.at("dtype"), &result.dataType) || !parseReduceOp(r.at("op"), &result.op)) {
        *error = "a result names an unknown collective, dtype or op: " + r.dump();
        return false;
      }
      result.bytes = r.at("size_bytes");
      result.count = r.at("count");
      result.root = field(r, "root", -1).get<int>();
      result.placement = r.at("in_place").get<bool>() ? Placement::kInPlace : Placement::kOutOfPlace;
      result.cycle = field(r, "cycle", 0).get<int>();
      result.ncclSamples = samplesFrom(r.at("nccl"));
      result.flashcclSamples = samplesFrom(r.at("flashccl"));
      result.timing = summarizePairs(result.ncclSamples, result.flashcclSamples);
      result.checked = r.at("checked");
      result.wrong = result.checked ? r.at("wrong").get<uint64_t>() : 0;
      result.checkRule = r.at("check_rule");
      result.algorithm = r.at("algorithm");
      parsed.results.push_back(result);
    }
    *report = parsed;
    return true;
  } catch (const json::exception& e) {
    *error = e.what();
    return false;
  }
}

bool writeReportFile(const std::string& path, const RunReport& report, bool complete, std::string* error) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream file(temporary);
    file << reportToJson(report, complete).dump(1) << "\n";
    if (!file) {
      *error = "cannot write " + temporary + ": " + std::strerror(errno);
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool readReportFile(const std::string& path, RunReport* report, bool* complete, std::string* error) {
  std::ifstream file(path);
  if (!file) {
    *error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  const Json j = Json::parse(file, nullptr, false);
  if (j.is_discarded()) {
    *error = path + " is not JSON";
    return false;
  }
  if (!reportFromJson(j, report, complete, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

}  // namespace perf
}  // namespace flashccl
