#include "result_file.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace flashccl {
namespace perf {
namespace {

const char kMagic[] = "flashccl-perf-results\t1";

// Fields never contain tabs or newlines (they are names, paths and numbers); replace any that do.
std::string clean(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

std::string numberList(const std::vector<double>& values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + number(values[i]);
  return text.empty() ? "-" : text;
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream stream(line);
  while (std::getline(stream, field, separator)) fields.push_back(field);
  if (!line.empty() && line.back() == separator) fields.push_back("");
  return fields;
}

bool toDoubles(const std::string& text, std::vector<double>* values) {
  values->clear();
  if (text == "-") return true;
  for (const std::string& item : split(text, ',')) {
    char* end = nullptr;
    values->push_back(std::strtod(item.c_str(), &end));
    if (item.empty() || *end) return false;
  }
  return true;
}

bool toUnsigned(const std::string& text, unsigned long long* value) {
  char* end = nullptr;
  *value = std::strtoull(text.c_str(), &end, 10);
  return !text.empty() && !*end;
}

bool toInt(const std::string& text, int* value) {
  char* end = nullptr;
  *value = static_cast<int>(std::strtol(text.c_str(), &end, 10));
  return !text.empty() && !*end;
}

}  // namespace

std::string serializeRunInfo(const RunInfo& info) {
  std::string text = std::string(kMagic) + "\n";
  auto add = [&](const char* key, const std::string& value) {
    text += std::string("info\t") + key + "\t" + clean(value) + "\n";
  };
  add("flashccl_version", info.flashcclVersion);
  add("nccl_version", info.ncclVersion);
  add("nccl_library", info.ncclLibrary);
  add("date", info.date);
  add("host", info.host);
  add("machine", info.machine);
  add("command", info.command);
  add("layout", std::to_string(info.layout.processes) + "," + std::to_string(info.layout.threads) +
                    "," + std::to_string(info.layout.gpusPerThread) + "," +
                    (info.layout.separateProcesses ? "1" : "0"));
  add("sizes", std::to_string(info.minBytes) + "," + std::to_string(info.maxBytes) + "," +
                   std::to_string(info.stepFactor));
  add("loops", std::to_string(info.iters) + "," + std::to_string(info.warmupIters) + "," +
                   std::to_string(info.pairs) + "," + std::to_string(info.graphOps));
  add("check", info.check ? "1" : "0");
  add("seed", std::to_string(info.seed));
  for (const DeviceInfo& d : info.devices) {
    text += "device\t" + std::to_string(d.rank) + "\t" + std::to_string(d.device) + "\t" +
            std::to_string(d.pid) + "\t" + clean(d.host) + "\t" + clean(d.busId) + "\t" +
            clean(d.name) + "\n";
  }
  for (const EnvSetting& e : info.environment)
    text += "env\t" + clean(e.name) + "\t" + (e.set ? "1" : "0") + "\t" + clean(e.value) + "\n";
  return text;
}

std::string serializeResult(const SizeResult& r) {
  return "result\t" + std::string(collectiveName(r.collective)) + "\t" + std::to_string(r.bytes) +
         "\t" + std::to_string(r.count) + "\t" + dataTypeName(r.dataType) + "\t" +
         reduceOpName(r.op) + "\t" + placementName(r.placement) + "\t" +
         number(r.timing.ncclMicros) + "\t" + number(r.timing.flashcclMicros) + "\t" +
         number(r.timing.speedup) + "\t" + number(r.timing.speedupMin) + "\t" +
         number(r.timing.speedupMax) + "\t" + numberList(r.ncclSamples) + "\t" +
         numberList(r.flashcclSamples) + "\t" + (r.checked ? "1" : "0") + "\t" +
         std::to_string(r.wrong) + "\t" + clean(r.checkRule) + "\t" + clean(r.algorithm) + "\n";
}

std::string serializeEnd() { return "end\n"; }

bool parseResultFile(const std::string& text, RunReport* report, bool* complete,
                     std::string* error) {
  *report = RunReport();
  *complete = false;
  std::istringstream stream(text);
  std::string line;
  int lineNumber = 0;
  auto fail = [&](const std::string& why) {
    *error = "results file line " + std::to_string(lineNumber) + ": " + why;
    return false;
  };
  RunInfo& info = report->info;
  while (std::getline(stream, line)) {
    ++lineNumber;
    if (lineNumber == 1) {
      if (line != kMagic) return fail("not a flashccl perf results file (version 1)");
      continue;
    }
    const std::vector<std::string> f = split(line, '\t');
    if (f.empty()) continue;
    if (f[0] == "end") {
      *complete = true;
    } else if (f[0] == "info" && f.size() == 3) {
      const std::string& key = f[1];
      const std::string& value = f[2];
      std::vector<double> numbers;
      if (key == "flashccl_version") info.flashcclVersion = value;
      else if (key == "nccl_version") info.ncclVersion = value;
      else if (key == "nccl_library") info.ncclLibrary = value;
      else if (key == "date") info.date = value;
      else if (key == "host") info.host = value;
      else if (key == "machine") info.machine = value;
      else if (key == "command") info.command = value;
      else if (key == "check") info.check = value == "1";
      else if (key == "seed") info.seed = std::strtoull(value.c_str(), nullptr, 10);
      else if (key == "layout" || key == "sizes" || key == "loops") {
        if (!toDoubles(value, &numbers)) return fail("bad numbers in " + key);
        if (key == "layout" && numbers.size() == 4) {
          info.layout.processes = static_cast<int>(numbers[0]);
          info.layout.threads = static_cast<int>(numbers[1]);
          info.layout.gpusPerThread = static_cast<int>(numbers[2]);
          info.layout.separateProcesses = numbers[3] != 0;
        } else if (key == "sizes" && numbers.size() == 3) {
          info.minBytes = static_cast<size_t>(numbers[0]);
          info.maxBytes = static_cast<size_t>(numbers[1]);
          info.stepFactor = static_cast<size_t>(numbers[2]);
        } else if (key == "loops" && numbers.size() == 4) {
          info.iters = static_cast<int>(numbers[0]);
          info.warmupIters = static_cast<int>(numbers[1]);
          info.pairs = static_cast<int>(numbers[2]);
          info.graphOps = static_cast<int>(numbers[3]);
        } else {
          return fail("wrong number of fields in " + key);
        }
      }
    } else if (f[0] == "device" && f.size() == 7) {
      DeviceInfo d;
      if (!toInt(f[1], &d.rank) || !toInt(f[2], &d.device) || !toInt(f[3], &d.pid))
        return fail("bad device line");
      d.host = f[4];
      d.busId = f[5];
      d.name = f[6];
      info.devices.push_back(d);
    } else if (f[0] == "env" && f.size() == 4) {
      info.environment.push_back({f[1], f[2] == "1", f[3]});
    } else if (f[0] == "result" && f.size() == 18) {
      SizeResult r;
      unsigned long long bytes = 0, count = 0, wrong = 0;
      if (!parseCollective(f[1], &r.collective) || !toUnsigned(f[2], &bytes) ||
          !toUnsigned(f[3], &count) || !parseDataType(f[4], &r.dataType))
        return fail("bad result line");
      if (f[5] == "none") r.op = ReduceOp::kNone;
      else if (!parseReduceOp(f[5], &r.op)) return fail("bad op " + f[5]);
      r.placement = f[6] == "in" ? Placement::kInPlace : Placement::kOutOfPlace;
      std::vector<double> single;
      double* targets[] = {&r.timing.ncclMicros, &r.timing.flashcclMicros, &r.timing.speedup,
                           &r.timing.speedupMin, &r.timing.speedupMax};
      for (int k = 0; k < 5; ++k) {
        if (!toDoubles(f[7 + k], &single) || single.size() != 1) return fail("bad number");
        *targets[k] = single[0];
      }
      if (!toDoubles(f[12], &r.ncclSamples) || !toDoubles(f[13], &r.flashcclSamples))
        return fail("bad samples");
      r.checked = f[14] == "1";
      if (!toUnsigned(f[15], &wrong)) return fail("bad #wrong");
      r.bytes = bytes;
      r.count = count;
      r.wrong = wrong;
      r.checkRule = f[16];
      r.algorithm = f[17];
      report->results.push_back(r);
    } else {
      return fail("unexpected line '" + line.substr(0, 40) + "'");
    }
  }
  if (lineNumber == 0) {
    *error = "results file is empty";
    return false;
  }
  return true;
}

}  // namespace perf
}  // namespace flashccl
