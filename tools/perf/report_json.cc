#include "report_json.h"

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

bool reportFromJson(const json& j, RunReport* report, bool* complete, std::string* error) {
  try {
    if (j.at("tool") != "flashccl perf" || j.at("schema") != kReportSchemaVersion) {
      *error = "not a flashccl perf record of schema " + std::to_string(kReportSchemaVersion);
      return false;
    }
    RunReport parsed;
    RunInfo& info = parsed.info;
    *complete = j.at("complete").get<bool>();
    info.flashcclVersion = j.at("flashccl_version");
    info.flashcclCommit = j.at("flashccl_commit");
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
    info.environmentSetByPerf = environmentFrom(j.at("environment_set_by_perf"));
    const json& s = j.at("settings");
    info.minBytes = s.at("min_bytes");
    info.maxBytes = s.at("max_bytes");
    info.stepFactor = s.at("step_factor");
    info.stepBytes = s.at("step_bytes");
    info.iters = s.at("iters");
    info.warmupIters = s.at("warmup_iters");
    info.aggIters = s.at("agg_iters");
    info.cycles = s.at("cycles");
    info.pairs = s.at("pairs");
    info.graphReplays = s.at("graph_replays");
    info.average = s.at("average");
    info.blocking = s.at("blocking");
    info.cpuTime = s.at("cpu_time");
    info.check = s.at("check");
    info.seed = s.at("seed");
    for (const json& r : j.at("results")) {
      SizeResult result;
      if (!parseCollective(r.at("collective"), &result.collective) ||
          !parseDataType(r.at("dtype"), &result.dataType) || !parseReduceOp(r.at("op"), &result.op)) {
        *error = "a result names an unknown collective, dtype or op: " + r.dump();
        return false;
      }
      result.bytes = r.at("size_bytes");
      result.count = r.at("count");
      result.root = r.at("root");
      result.placement = r.at("in_place").get<bool>() ? Placement::kInPlace : Placement::kOutOfPlace;
      result.cycle = r.at("cycle");
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
