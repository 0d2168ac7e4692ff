// Command line of `flashccl perf`: nccl-tests' flags with nccl-tests' meanings (-b -e -i -f -t -g -n
// -w -m -N -c -o -d -r -z -G -a -C -T -J/--output_file; -p -y -R -S at nccl-tests' default 0 only,
// docs/cli.md says why), the shared options of docs/cli.md, and our own long options for what a
// side-by-side run adds (--coll, --placement, --processes, --grouped, --pairs, ...).
//
// Parsing is pure (no CUDA), so every error case is unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli_options.h"
#include "launched_rank.h"
#include "perf_types.h"

namespace flashccl {
namespace perf {

// ncclUniqueId is 128 bytes (NCCL_UNIQUE_ID_BYTES); it travels to child processes as 256 hex digits.
constexpr size_t kUniqueIdBytes = 128;

// -a: how the ranks' times of one block become the block's time (nccl-tests' values).
enum class RankAverage { kRankZero = 0, kMean = 1, kMin = 2, kMax = 3 };

struct PerfOptions {
  cli::SizeRange sizes;   // -b -e -f
  size_t stepBytes = 0;   // -i: add this at each step instead of multiplying by -f (0: use -f)
  int threads = 0;        // -t: 0 = not given (then every visible GPU, one thread each)
  int gpusPerThread = 0;  // -g: 0 = not given (1)
  int iters = 20;         // -n: timed iterations per block
  int warmupIters = 5;    // -w: untimed iterations before each block
  int aggIters = 1;       // -m: operations per iteration, issued in one ncclGroupStart/End
  int cycles = 1;         // -N: run the whole sweep this many times; 0: until interrupted (nccl-tests)
  int checkIters = 1;     // -c N: compare flashccl's output with NCCL's on N calls per case; 0: none
  bool check = true;      // checkIters > 0
  std::vector<Collective> collectives = {Collective::kAllReduce, Collective::kAllGather,
                                         Collective::kReduceScatter};  // --coll
  std::vector<DataType> dataTypes = {DataType::kFloat};                // -d
  std::vector<ReduceOp> reduceOps = {ReduceOp::kSum};                  // -o
  int root = 0;                   // -r: accepted as nccl-tests does; none of these collectives has one
  bool blocking = false;          // -z 1: wait for each operation before issuing the next
  int graphReplays = 0;           // -G N: capture the -n iterations in a CUDA graph, replay it N times
  RankAverage average = RankAverage::kMean;  // -a
  bool cpuTime = false;           // -C 1: time blocks with the host clock instead of CUDA events
  int timeoutSeconds = 120;       // -T: no progress for this long = hang: report it and exit 1
  std::string jsonPath;           // -J / --json
  std::string markdownPath;       // --markdown
  std::string machineLabel;       // --machine: how records name the machine (default: host + GPUs)
  std::vector<Placement> placements = {Placement::kOutOfPlace, Placement::kInPlace};  // --placement
  int processes = 0;              // --processes N: one process per rank (0: not given)
  bool grouped = false;           // --grouped: one thread, communicators from ncclCommInitAll
  // --launched: this process is one rank of a job a launcher started (mpirun, torchrun, srun),
  // one process per GPU. `launch` is what the launcher's variables say; perfMain fills it from
  // the environment after parsing (launched_rank.h), tests fill it themselves.
  bool launched = false;
  LaunchedRank launch;
  int pairs = 9;                  // --pairs: NCCL/flashccl block pairs per size
  uint64_t seed = 1;              // --seed: input generator seed
  bool quick = false;             // --quick: the quick preset was applied

  // Hidden; set by the parent of --processes on the command lines of the processes it starts.
  int childRank = -1;       // --child-rank
  std::string uniqueIdHex;  // --uid
  std::string resultFile;   // --result-file: where rank 0 writes its JSON report for the parent

  // What followed `perf`, as typed, less the hidden options (for records and the children's command).
  std::vector<std::string> arguments;
};

struct ParseOutcome {
  int status = -1;  // -1: run; 0: --help was printed; 2: a usage error was printed
  PerfOptions options;
};

// args: what followed `flashccl perf`. Help goes to `out`, the one-line usage error to `err`.
ParseOutcome parsePerfOptions(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The sizes of the sweep: -b, then times -f (or plus -i) while <= -e.
std::vector<size_t> sweepSizes(const PerfOptions& options);

// How ranks map onto processes, threads and GPUs.
struct RankLayout {
  int processes = 1;
  int threads = 1;
  int gpusPerThread = 1;
  bool separateProcesses = false;  // --processes: each rank in a process of its own (even 1)
  bool initAll = false;            // --grouped: ncclCommInitAll from one thread
  bool launched = false;           // --launched: this process is one of `processes`, started by a launcher
  int nranks() const { return processes * threads * gpusPerThread; }
  // "threads", "processes", "launched", "grouped" (--grouped), "threads x gpus" (-g > 1).
  std::string modeName() const;
  std::string describe() const;  // "2 threads x 1 GPU each (threads mode)"
};

// Applies the defaults against the number of visible GPUs. False with *error for: no GPU, more GPUs
// asked than exist (--launched: a local rank without a GPU of that index).
bool resolveRankLayout(const PerfOptions& options, int visibleGpus, RankLayout* layout,
                       std::string* error);

// The message for "no GPU at all" (cudaGetDeviceCount failed or returned 0), for `command` (perf,
// tune). cudaErrorName is what cudaGetDeviceCount returned ("" for 0 devices); driverLoads whether
// the NVIDIA driver library (libcuda.so.1) loads here: the CUDA runtime says
// cudaErrorInsufficientDriver both for a driver too old and for none at all, and this tells which.
std::string noGpuMessage(const std::string& command, const std::string& cudaErrorName,
                         const std::string& cudaErrorText, bool driverLoads);

// Whether libcuda.so.1 (the NVIDIA driver's CUDA library) can be loaded in this process.
bool nvidiaDriverLoads();

// Every (collective, datatype, size) must be measurable on `nranks` ranks; empty when all are,
// else the first problem (sizeProblem).
std::string validateSizes(const PerfOptions& options, int nranks);

// Hex for the unique id handed to child processes.
std::string bytesToHex(const void* data, size_t bytes);
bool hexToBytes(const std::string& hex, void* data, size_t bytes);

// The command line, shell-quoted, for headers and records: "flashccl perf -b 8 -e 4G ...".
std::string quotedCommand(const std::vector<std::string>& arguments);

}  // namespace perf
}  // namespace flashccl
