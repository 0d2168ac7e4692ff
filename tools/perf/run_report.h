// What one `flashccl perf` run found: the run's description (versions, devices, settings) and one
// result per measured (collective, datatype, op, size, placement). Rank 0 builds it; every output
// format (table, JSON, markdown, plot, the results file of --procs) is a view of it.
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
  std::string ncclVersion;     // "2.28.9", from ncclGetVersion (the real NCCL's, docs/design.md, "The real NCCL's version")
  std::string ncclLibrary;     // the real libnccl flashccl forwards to
  std::string date;            // local time, "2026-12-01 14:03:11"
  std::string host;
  std::string machine;         // --machine, or "<host>: 2 x NVIDIA H200"
  std::string command;         // quotedCommand(arguments)
  RankLayout layout;
  std::vector<DeviceInfo> devices;
  std::vector<EnvSetting> environment;
  // Settings that shape the numbers.
  size_t minBytes = 0;
  size_t maxBytes = 0;
  size_t stepFactor = 2;
  int iters = 0;
  int warmupIters = 0;
  int pairs = 0;
  int graphOps = 0;
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
