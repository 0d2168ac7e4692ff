// What one `flashccl perf` run found: the run's description (versions, devices, settings) and one
// result per measured (collective, datatype, op, size, placement). Rank 0 builds it. The JSON
// (report_json.h) is its one file format: -J writes it, the parent of --processes reads its
// children's, and markdown (result_format.h) and plots (python -m flashccl plot) are made from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "perf_options.h"
#include "perf_types.h"
#include "timing_stats.h"

namespace flashccl {
namespace perf {

struct DeviceInfo {
  int rank = 0;
  int device = 0;  // CUDA device index in that rank's process
  int pid = 0;
  std::string host;
  std::string busId;  // "0000:00:06.0"
  std::string name;   // "NVIDIA H200"
};

struct EnvSetting {
  std::string name;
  bool set = false;
  std::string value;
};

struct RunInfo {
  std::string flashcclVersion;
  std::string flashcclCommit;  // `git describe` of the tree the tool was built from

  std::string ncclVersion;     // "2.28.9", from ncclGetVersion (the real NCCL's: docs/design.md, "The real NCCL's version")
  std::string ncclLibrary;     // the real libnccl flashccl forwards to
  std::string date;            // local time, "2026-12-01 14:03:11"
  std::string host;
  std::string machine;         // --machine, or "<host>: 2 x NVIDIA H200"
  std::string command;         // quotedCommand(arguments)
  RankLayout layout;
  std::vector<DeviceInfo> devices;
  std::vector<EnvSetting> environment;
  // Variables perf itself set for NCCL (NCCL_NVLS_ENABLE=0 when the user left it unset): the
  // NCCL column was measured with them.
  std::vector<EnvSetting> environmentSetByPerf;
  // Settings that shape the numbers.
  size_t minBytes = 0;
  size_t maxBytes = 0;
  size_t stepFactor = 2;
  size_t stepBytes = 0;
  int iters = 0;
  int warmupIters = 0;
  int aggIters = 1;
  int cycles = 1;
  int pairs = 0;
  int graphReplays = 0;
  int average = 1;  // RankAverage
  bool blocking = false;
  bool cpuTime = false;
  bool check = true;
  uint64_t seed = 0;

  int nranks() const { return layout.nranks(); }
};

struct SizeResult {
  Collective collective = Collective::kAllReduce;
  size_t bytes = 0;
  size_t count = 0;  // whole-buffer elements, as nccl-tests prints them
  DataType dataType = DataType::kFloat;
  ReduceOp op = ReduceOp::kSum;  // kNone for AllGather
  Placement placement = Placement::kOutOfPlace;
  int root = -1;   // nccl-tests prints -1 for collectives without a root
  int cycle = 0;   // which -N cycle (0-based)
  PairedSummary timing;
  std::vector<double> ncclSamples;      // per-operation time of each pair's NCCL block (us)
  std::vector<double> flashcclSamples;  // same, flashccl
  bool checked = false;
  uint64_t wrong = 0;       // mismatching elements, summed over ranks, + ranks inconsistent with rank 0
  std::string checkRule;    // "bitwise" / "relative 1.0e-05"
  std::string algorithm;    // flashcclLastAlgorithm on rank 0, "NCCL" when it fell back
};

struct RunReport {
  RunInfo info;
  std::vector<SizeResult> results;

  uint64_t totalWrong() const {
    uint64_t total = 0;
    for (const SizeResult& r : results) total += r.wrong;
    return total;
  }
};

}  // namespace perf
}  // namespace flashccl
