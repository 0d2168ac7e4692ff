// How doctor talks to `flashccl perf`: the command line for one collective and the reading of
// the JSON perf writes with --json. The one file to change when perf's options or JSON schema
// change (its parser is tools/perf/perf_options.cc and its writer tools/perf/report_json.cc;
// tests/unit/doctor/collectives_test.cc holds them together).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

struct PerfRunSettings {
  std::string collective;  // "allreduce", "allgather", "reducescatter", "alltoall"
  size_t minBytes = 1 << 20;
  size_t maxBytes = 256 << 20;
  int stepFactor = 16;
  int iters = 20;
  int warmupIters = 5;
  int pairs = 5;
};

// Arguments after the program name: {"perf", "--coll", ..., "--json", jsonPath}.
std::vector<std::string> perfArguments(const PerfRunSettings& settings, const std::string& jsonPath);

struct PerfMeasurement {
  std::string collective;  // normalized ("allreduce")
  size_t bytes = 0;
  double ncclBusbw = 0.0;      // GB/s
  double flashcclBusbw = 0.0;  // GB/s
  double ncclMicros = 0.0;
  double flashcclMicros = 0.0;
  bool checked = false;
  uint64_t wrong = 0;
  std::string algorithm;  // what flashccl ran ("NCCL" when it forwarded)
};

struct PerfRun {
  int ranks = 0;
  std::string ncclVersion;
  std::string flashcclVersion;
  std::vector<PerfMeasurement> results;
};

bool parsePerfJson(const std::string& text, PerfRun* run, std::string* error);

}  // namespace doctor
}  // namespace flashccl
