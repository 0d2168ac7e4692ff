// Command line of `flashccl perf`: flags in the spirit of nccl-tests (-b -e -f -n -w -c -d -o -t -g -G),
// plus what a side-by-side run needs (--pairs, --procs, --json, --markdown, --plot, --check).
//
// Parsing is pure (no CUDA), so every error case is unit-tested; perf_main.cc maps a failed parse to
// exit code 2 with the message printed here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "perf_types.h"

namespace flashccl {
namespace perf {

// ncclUniqueId is 128 bytes (NCCL_UNIQUE_ID_BYTES); it travels to child processes as 256 hex digits.
constexpr size_t kUniqueIdBytes = 128;

struct PerfOptions {
  size_t minBytes = 8;                    // -b
  size_t maxBytes = 128u << 20;           // -e
  size_t stepFactor = 2;                  // -f
  int iters = 20;                         // -n: timed operations per block (graph launches with -G)
  int warmupIters = 5;                    // -w: untimed operations before each block
  int pairs = 5;                          // --pairs: NCCL/flashccl block pairs per size
  int graphOps = 0;                       // -G N: operations captured per CUDA graph; 0 = eager
  std::vector<Collective> collectives = {Collective::kAllReduce, Collective::kAllGather,
                                         Collective::kReduceScatter};  // -c
  std::vector<DataType> dataTypes = {DataType::kFloat};                // -d
  std::vector<ReduceOp> reduceOps = {ReduceOp::kSum};                  // -o
  std::vector<Placement> placements = {Placement::kOutOfPlace};        // -i
  int threads = 0;        // -t: 0 = not given (then: every visible GPU, one thread each)
  int gpusPerThread = 0;  // -g: 0 = not given (1)
  int processes = 0;      // --procs: 0 = not given (one process)
  bool check = true;      // --check / --no-check
  uint64_t seed = 1;      // --seed: input generator seed
  int timeoutSeconds = 120;  // -T: no progress for this long = hang: report it and exit 1
  std::string jsonPath;      // --json
  std::string markdownPath;  // --markdown
  std::string plotPath;      // --plot
  std::string machineLabel;  // --machine: how reports name the machine (default: host + GPUs)
  bool smoke = false;        // --smoke: the quick preset was applied
  bool help = false;         // -h / --help

  // Hidden; set by the parent of --procs on the command lines of the processes it starts.
  int childRank = -1;       // --child-rank
  std::string uniqueIdHex;  // --uid
  std::string resultFile;   // --result-file: where rank 0 writes its results for the parent

  // What followed `perf`, as typed, less the hidden options (for reports and the children's command).
  std::vector<std::string> arguments;
};

struct ParseOutcome {
  bool ok = false;
  std::string error;  // one line naming the problem (when !ok)
  PerfOptions options;
};

// args: what followed `flashccl perf` (argv[1..]).
ParseOutcome parsePerfOptions(const std::vector<std::string>& args);

std::string perfUsage();

// How ranks map onto processes, threads and GPUs.
struct RankLayout {
  int processes = 1;
  int threads = 1;
  int gpusPerThread = 1;
  bool separateProcesses = false;  // --procs: each rank in a process of its own (even --procs 1)
  int nranks() const { return processes * threads * gpusPerThread; }
  // "threads" (-t), "processes" (--procs), "grouped" (-g, one thread), "threads x grouped".
  std::string modeName() const;
  std::string describe() const;  // "2 threads x 1 GPU each (threads mode)"
};

// Applies the defaults against the number of visible GPUs. False with *error for: no GPU, more GPUs
// asked than exist, --procs combined with -t/-g.
bool resolveRankLayout(const PerfOptions& options, int visibleGpus, RankLayout* layout,
                       std::string* error);

// The message for "no GPU at all" (cudaGetDeviceCount failed or returned 0).
std::string noGpuMessage(const std::string& cudaError);

// Every (collective, datatype, size) must be measurable on `nranks` ranks; empty when all are,
// else the first problem (sizeProblem) prefixed with the flags to change.
std::string validateSizes(const PerfOptions& options, int nranks);

// Hex for the unique id handed to child processes.
std::string bytesToHex(const void* data, size_t bytes);
bool hexToBytes(const std::string& hex, void* data, size_t bytes);

// The command line, shell-quoted, for headers and reports: "flashccl perf -b 8 -e 4G ...".
std::string quotedCommand(const std::vector<std::string>& arguments);

}  // namespace perf
}  // namespace flashccl
