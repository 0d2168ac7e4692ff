#include "perf_options.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>

#include "size_list.h"

namespace flashccl {
namespace perf {
namespace {

// Options whose value the parent of --processes adds for its children; records leave them out.
const char* const kHiddenOptions[] = {"--child-rank", "--uid", "--result-file"};

std::vector<std::string> withoutHiddenOptions(const std::vector<std::string>& args) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    bool hidden = false;
    for (const char* name : kHiddenOptions) {
      const std::string n = name;
      if (args[i] == n) {
        hidden = true;
        ++i;  // and its value
      } else if (args[i].compare(0, n.size() + 1, n + "=") == 0) {
        hidden = true;
      }
    }
    if (!hidden) kept.push_back(args[i]);
  }
  return kept;
}

// A 0/1 switch taking a value, as nccl-tests' -c, -z and -C do.
CLI::Option* addSwitch(CLI::App& app, const std::string& flags, bool* out, const std::string& description) {
  return app.add_option_function<int>(flags, [out](int value) { *out = value != 0; }, description)
      ->check(CLI::Range(0, 1))
      ->type_name("0|1")
      ->default_str(*out ? "1" : "0");
}

std::string consistencyProblem(const PerfOptions& o, const CLI::App& app) {
  if (o.sizes.minBytes > o.sizes.maxBytes)
    return "-b (" + std::to_string(o.sizes.minBytes) + " B) is larger than -e (" +
           std::to_string(o.sizes.maxBytes) + " B)";
  if (app.count("-i") && app.count("-f")) return "-i (add) and -f (multiply) both set the step; give one";
  if (o.processes > 0 && (o.threads > 1 || o.gpusPerThread > 1))
    return "--processes runs one rank per process; it cannot be combined with -t or -g";
  if (o.grouped && (o.threads > 1 || o.processes > 0))
    return "--grouped drives every GPU from one thread; it cannot be combined with -t or --processes";
  if (o.launched && (o.processes > 0 || o.grouped || o.threads > 1 || o.gpusPerThread > 1))
    return "--launched runs this process as one rank of a job its launcher started (one process per GPU); "
           "it cannot be combined with --processes, --grouped, -t or -g";
  const bool child = o.childRank >= 0 || !o.uniqueIdHex.empty();
  if (child && (o.childRank < 0 || o.uniqueIdHex.empty() || o.processes <= 0))
    return "--child-rank and --uid are set by `flashccl perf --processes N` for the processes it starts; "
           "they go together, with --processes";
  if (o.childRank >= 0 && o.childRank >= o.processes)
    return "--child-rank " + std::to_string(o.childRank) + " is not below --processes " +
           std::to_string(o.processes);
  if (!o.uniqueIdHex.empty()) {
    unsigned char id[kUniqueIdBytes];
    if (!hexToBytes(o.uniqueIdHex, id, sizeof(id)))
      return "--uid: expected " + std::to_string(2 * kUniqueIdBytes) + " hex digits";
  }
  return "";
}

// nccl-tests' run flags whose non-default values ask for something perf does not do; their
// default (0) is what perf always does, so a copied nccl-tests command line runs as written.
struct DefaultOnlyFlag {
  const char* flags;
  const char* meaning;  // in nccl-tests
  const char* why;      // why perf does not take the other values
};
const DefaultOnlyFlag kDefaultOnlyFlags[] = {
    {"-p,--parallel_init", "initialize the communicators from each thread",
     "perf creates every thread's communicators in one group"},
    {"-y,--stream_null", "run on the NULL stream", "perf times both libraries on streams of its own"},
    {"-R,--local_register", "register the buffers with NCCL",
     "flashccl's kernels copy through their own buffers, so registration would change NCCL's side only"},
    {"-S,--report_timestamps", "print a timestamp per size", "perf's records carry the run's date"},
};

// --quick: small sizes and few iterations, for every setting the command line did not give.
void applyQuickPreset(const CLI::App& app, PerfOptions* o) {
  if (!app.count("-b")) o->sizes.minBytes = 8;
  if (!app.count("-e")) o->sizes.maxBytes = 1u << 20;
  if (!app.count("-f") && !app.count("-i")) o->sizes.stepFactor = 16;
  if (!app.count("-n")) o->iters = 5;
  if (!app.count("-w")) o->warmupIters = 2;
  if (!app.count("--pairs")) o->pairs = 3;
}

}  // namespace

ParseOutcome parsePerfOptions(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ParseOutcome outcome;
  PerfOptions& o = outcome.options;
  CLI::App app(
      "Runs each collective through the real NCCL and through flashccl, in alternating blocks on the "
      "same communicators, and prints nccl-tests' table for flashccl with NCCL's time, the speedup and "
      "the algorithm beside it. docs/perf.md explains the columns; exit status 0 right, 1 a wrong "
      "result, failure or hang, 2 bad usage or no usable GPU.",
      "flashccl perf");
  app.get_formatter()->column_width(34);

  cli::addSizeRange(app, &o.sizes);
  cli::addSize(app, "-i,--stepbytes", &o.stepBytes, "add this to the size at each step instead of -f")
      ->default_str("");
  app.add_option("-t,--nthreads", o.threads, "threads per process (default: one per visible GPU)")
      ->check(CLI::Range(1, 1024));
  app.add_option("-g,--ngpus", o.gpusPerThread, "GPUs per thread, each call in ncclGroupStart/End (1)")
      ->check(CLI::Range(1, 1024));
  app.add_option("-n,--iters", o.iters, "timed iterations per block")->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("-w,--warmup_iters", o.warmupIters, "untimed iterations before each block")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  app.add_option("-m,--agg_iters", o.aggIters, "operations per iteration, aggregated in one group")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("-N,--run_cycles", o.cycles, "run the whole sweep this many times (0: until interrupted)")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  app.add_option("-c,--check", o.checkIters,
                 "check iterations: compare flashccl's result with NCCL's on N calls per case (0: no check, "
                 "#wrong shows N/A)")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  for (const DefaultOnlyFlag& flag : kDefaultOnlyFlags) {
    const std::string shown = std::string(flag.flags).substr(0, 2);
    app.add_option_function<int>(
           flag.flags,
           [flag, shown](int value) {
             if (value != 0)
               throw CLI::ValidationError(shown, std::string("nccl-tests' ") + shown + " " +
                                                     std::to_string(value) + " (" + flag.meaning +
                                                     ") is not taken: " + flag.why + "; only 0 (docs/cli.md)");
           },
           std::string("nccl-tests' flag, accepted at its default 0 only (") + flag.meaning + ")")
        ->type_name("0")->default_str("0");
  }
  std::vector<int> collectives = cli::toIndices(o.collectives);
  std::vector<int> dataTypes = cli::toIndices(o.dataTypes);
  std::vector<int> reduceOps = cli::toIndices(o.reduceOps);
  cli::addCollectives(app, &collectives);
  cli::addDataTypes(app, &dataTypes);
  std::vector<int> measuredOps;
  for (int i = 0; i < kNumMeasuredReduceOps; ++i) measuredOps.push_back(i);
  cli::addReduceOps(app, &reduceOps, measuredOps);
  app.add_option("-r,--root", o.root, "root rank (accepted as nccl-tests does; these collectives have none)")
      ->check(CLI::Range(0, 1023))->capture_default_str();
  addSwitch(app, "-z,--blocking", &o.blocking, "1: wait for each operation before the next");
  app.add_option("-G,--cudagraph", o.graphReplays,
                 "capture the -n iterations in a CUDA graph and time N replays of it (0: eager)")
      ->check(CLI::Range(0, 100000))->capture_default_str();
  app.add_option_function<int>("-a,--average", [&o](int v) { o.average = static_cast<RankAverage>(v); },
                               "ranks' times: 0 rank 0, 1 mean, 2 min, 3 max")
      ->check(CLI::Range(0, 3))->default_str("1");
  addSwitch(app, "-C,--report_cputime", &o.cpuTime, "1: time with the host clock instead of CUDA events");
  app.add_option("-T,--timeout", o.timeoutSeconds, "no progress for this many seconds is a hang: exit 1")
      ->check(CLI::Range(1, 86400))->capture_default_str();
  cli::addJsonFile(app, &o.jsonPath, "write the run as JSON (the record; markdown and plots come from it)");
  cli::addMarkdownFile(app, &o.markdownPath, "write the bench/results record as markdown");
  app.add_option("--machine", o.machineLabel, "machine tag in records (default: host and GPU model)")
      ->type_name("TAG");
  app.add_option_function<std::string>(
         "--placement",
         [&o](const std::string& v) {
           if (v == "out") o.placements = {Placement::kOutOfPlace};
           else if (v == "in") o.placements = {Placement::kInPlace};
           else if (v == "both") o.placements = {Placement::kOutOfPlace, Placement::kInPlace};
           else throw CLI::ValidationError("--placement", "'" + v + "' is not one of out, in or both");
         },
         "out-of-place, in-place or both")
      ->type_name("out|in|both")->default_str("both");
  app.add_option("--processes", o.processes, "one process per rank: start N copies of this command")
      ->check(CLI::Range(1, 1024));
  app.add_flag("--grouped", o.grouped, "one thread drives every GPU; communicators from ncclCommInitAll");
  app.add_flag("--launched", o.launched,
               "one rank of a job started by mpirun, torchrun or srun (one process per GPU; rank from "
               "their variables, GPU = local rank, ranks meet at NCCL_COMM_ID or MASTER_ADDR:MASTER_PORT)");
  app.add_option("--pairs", o.pairs, "NCCL/flashccl block pairs per size; times are medians over them")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the input generator")->capture_default_str();
  cli::addQuick(app, &o.quick, "quick first run: -b 8 -e 1M -f 16 -n 5 -w 2 --pairs 3 where not given");
  app.add_option("--child-rank", o.childRank)->group("")->check(CLI::Range(0, 1023));
  app.add_option("--uid", o.uniqueIdHex)->group("");
  app.add_option("--result-file", o.resultFile)->group("");

  outcome.status = cli::parse(app, "perf", args, out, err);
  if (outcome.status >= 0) return outcome;
  o.collectives = cli::fromIndices<Collective>(collectives);
  o.dataTypes = cli::fromIndices<DataType>(dataTypes);
  o.reduceOps = cli::fromIndices<ReduceOp>(reduceOps);
  o.check = o.checkIters > 0;
  if (o.quick) applyQuickPreset(app, &o);
  o.arguments = withoutHiddenOptions(args);
  const std::string problem = consistencyProblem(o, app);
  if (!problem.empty()) outcome.status = cli::usageError("perf", problem, err);
  return outcome;
}

std::vector<size_t> sweepSizes(const PerfOptions& options) {
  if (options.stepBytes > 0)
    return linearSizes(options.sizes.minBytes, options.sizes.maxBytes, options.stepBytes);
  return geometricSizes(options.sizes.minBytes, options.sizes.maxBytes, options.sizes.stepFactor);
}

std::string RankLayout::modeName() const {
  if (launched) return "launched";
  if (separateProcesses || processes > 1) return "processes";
  if (initAll) return "grouped";
  if (gpusPerThread > 1) return "threads x gpus";
  return "threads";
}

std::string RankLayout::describe() const {
  char text[160];
  if (separateProcesses || processes > 1) {
    std::snprintf(text, sizeof(text), "%d process%s x 1 GPU each (%s mode)", processes,
                  processes == 1 ? "" : "es", modeName().c_str());
  } else {
    std::snprintf(text, sizeof(text), "%d thread%s x %d GPU%s each (%s mode)", threads,
                  threads == 1 ? "" : "s", gpusPerThread, gpusPerThread == 1 ? "" : "s",
                  modeName().c_str());
  }
  return text;
}

std::string noGpuMessage(const std::string& command, const std::string& cudaErrorName,
                         const std::string& cudaErrorText, bool driverLoads) {
  const std::string prefix = "flashccl " + command + " needs NVIDIA GPUs; ";
  if (cudaErrorName.empty()) return prefix + "none found (cudaGetDeviceCount: 0 devices)";
  const std::string call = " (cudaGetDeviceCount: " + cudaErrorName + ")";
  // The runtime says "insufficient driver" both when the driver is too old and when there is none.
  if (cudaErrorName == "cudaErrorInsufficientDriver") {
    if (!driverLoads)
      return prefix + "no NVIDIA driver here" + call +
             ": install or load it (nvidia-smi should list the GPUs); flashccl doctor checks the driver";
    return prefix + "the NVIDIA driver is older than flashccl's CUDA runtime" + call +
           ": upgrade the driver; flashccl doctor names both versions";
  }
  return prefix + "none found (cudaGetDeviceCount: " + cudaErrorName + ": " + cudaErrorText + ")";
}

bool nvidiaDriverLoads() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) return false;
  dlclose(driver);
  return true;
}

bool resolveRankLayout(const PerfOptions& options, int visibleGpus, RankLayout* layout, std::string* error) {
  if (visibleGpus <= 0) {
    *error = noGpuMessage("perf", "", "", true);
    return false;
  }
  RankLayout resolved;
  std::string asked;
  if (options.launched) {
    resolved.processes = options.launch.worldSize;
    resolved.separateProcesses = true;
    resolved.launched = true;
    if (options.launch.localRank >= visibleGpus) {
      *error = "--launched: " + options.launch.launcher + " gives this process local rank " +
               std::to_string(options.launch.localRank) + ", but only " + std::to_string(visibleGpus) +
               " GPU" + (visibleGpus == 1 ? " is" : "s are") +
               " visible (cudaGetDeviceCount); start one process per GPU, or check CUDA_VISIBLE_DEVICES";
      return false;
    }
    *layout = resolved;
    return true;
  }
  if (options.processes > 0) {
    resolved.processes = options.processes;
    resolved.separateProcesses = true;
    asked = "--processes " + std::to_string(options.processes);
  } else if (options.grouped) {
    resolved.initAll = true;
    resolved.gpusPerThread = options.gpusPerThread > 0 ? options.gpusPerThread : visibleGpus;
    asked = "--grouped" + (options.gpusPerThread > 0 ? " -g " + std::to_string(options.gpusPerThread) : "");
  } else {
    resolved.gpusPerThread = options.gpusPerThread > 0 ? options.gpusPerThread : 1;
    if (options.threads > 0) resolved.threads = options.threads;
    else if (options.gpusPerThread > 0) resolved.threads = 1;
    else resolved.threads = visibleGpus;
    if (options.threads > 0) asked += "-t " + std::to_string(options.threads);
    if (options.gpusPerThread > 0)
      asked += (asked.empty() ? "" : " x ") + std::string("-g ") + std::to_string(options.gpusPerThread);
  }
  if (resolved.nranks() > visibleGpus) {
    *error = "asked for " + std::to_string(resolved.nranks()) + " GPUs (" + asked + ") but only " +
             std::to_string(visibleGpus) + " " + (visibleGpus == 1 ? "is" : "are") +
             " visible (cudaGetDeviceCount); lower -t/-g/--processes or check CUDA_VISIBLE_DEVICES";
    return false;
  }
  *layout = resolved;
  return true;
}

std::string validateSizes(const PerfOptions& options, int nranks) {
  const std::vector<size_t> sizes = sweepSizes(options);
  if (sizes.empty()) return "no sizes between -b and -e";
  for (Collective coll : options.collectives)
    for (DataType type : options.dataTypes)
      for (size_t bytes : sizes) {
        const std::string problem = sizeProblem(coll, bytes, type, nranks);
        if (!problem.empty()) return problem;
      }
  return "";
}

std::string bytesToHex(const void* data, size_t bytes) {
  static const char kDigits[] = "0123456789abcdef";
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::string hex;
  hex.reserve(2 * bytes);
  for (size_t i = 0; i < bytes; ++i) {
    hex.push_back(kDigits[p[i] >> 4]);
    hex.push_back(kDigits[p[i] & 15]);
  }
  return hex;
}

bool hexToBytes(const std::string& hex, void* data, size_t bytes) {
  if (hex.size() != 2 * bytes) return false;
  unsigned char* p = static_cast<unsigned char*>(data);
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < bytes; ++i) {
    const int high = nibble(hex[2 * i]), low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    p[i] = static_cast<unsigned char>(high << 4 | low);
  }
  return true;
}

std::string quotedCommand(const std::vector<std::string>& arguments) {
  std::string command = "flashccl perf";
  for (const std::string& arg : arguments) {
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_=+,./:@%") == std::string::npos;
    if (plain) {
      command += " " + arg;
    } else {
      std::string quoted = "'";
      for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      command += " " + quoted + "'";
    }
  }
  return command;
}

}  // namespace perf
}  // namespace flashccl
