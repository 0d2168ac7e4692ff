#include "perf_options.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "size_list.h"

namespace flashccl {
namespace perf {
namespace {

enum class OptionId {
  kMinBytes, kMaxBytes, kStepFactor, kIters, kWarmup, kPairs, kGraph, kCollectives, kDataTypes,
  kOps, kPlacement, kThreads, kGpus, kProcs, kCheck, kNoCheck, kSeed, kTimeout, kJson, kMarkdown,
  kPlot, kMachine, kSmoke, kHelp, kChildRank, kUid, kResultFile,
};

struct OptionSpec {
  OptionId id;
  char shortName;        // 0 when there is none
  const char* longName;  // without the leading "--"
  const char* valueName; // nullptr for switches
  const char* help;      // nullptr for hidden options
};

const OptionSpec kOptions[] = {
    {OptionId::kMinBytes, 'b', "minbytes", "SIZE", "smallest size in bytes, K/M/G suffixes (8)"},
    {OptionId::kMaxBytes, 'e', "maxbytes", "SIZE", "largest size in bytes (128M)"},
    {OptionId::kStepFactor, 'f', "stepfactor", "N", "multiply the size by N each step (2)"},
    {OptionId::kIters, 'n', "iters", "N",
     "timed operations per block (20); with -G, graph launches per block"},
    {OptionId::kWarmup, 'w', "warmup_iters", "N",
     "untimed operations before each block (5); with -G, one graph launch if N > 0"},
    {OptionId::kPairs, 0, "pairs", "N",
     "NCCL/flashccl block pairs per size (5); times and speedup are medians over pairs"},
    {OptionId::kGraph, 'G', "cudagraph", "N",
     "capture N back-to-back operations into a CUDA graph and time its replays (0 = eager)"},
    {OptionId::kCollectives, 'c', "collectives", "LIST",
     "all_reduce,all_gather,reduce_scatter or all (all)"},
    {OptionId::kDataTypes, 'd', "datatype", "LIST",
     "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2, comma "
     "separated, or all (float)"},
    {OptionId::kOps, 'o', "op", "LIST", "sum,prod,min,max,avg or all (sum)"},
    {OptionId::kPlacement, 'i', "placement", "in|out|both", "in-place, out-of-place or both (out)"},
    {OptionId::kThreads, 't', "nthreads", "N", "threads, one per GPU (default: every visible GPU)"},
    {OptionId::kGpus, 'g', "ngpus", "N",
     "GPUs driven by each thread, with ncclGroupStart/End around each call (1)"},
    {OptionId::kProcs, 0, "procs", "N", "one process per GPU: start N copies of this command"},
    {OptionId::kCheck, 0, "check", nullptr, "compare flashccl's results with NCCL's (default)"},
    {OptionId::kNoCheck, 0, "no-check", nullptr, "time only; #wrong shows N/A"},
    {OptionId::kSeed, 0, "seed", "N", "seed of the input generator (1)"},
    {OptionId::kTimeout, 'T', "timeout", "SECONDS",
     "no progress for this long counts as a hang: report where and exit 1 (120)"},
    {OptionId::kJson, 0, "json", "FILE", "write every result as JSON"},
    {OptionId::kMarkdown, 0, "markdown", "FILE", "write a markdown report (header and tables)"},
    {OptionId::kPlot, 0, "plot", "FILE.png", "plot speedup and busbw against size (PNG)"},
    {OptionId::kMachine, 0, "machine", "NAME", "machine name for reports (host and GPU model)"},
    {OptionId::kSmoke, 0, "smoke", nullptr,
     "quick first run on a new machine: -b 8 -e 1M -f 16 -n 5 -w 2 --pairs 3 -i both, unless "
     "given explicitly (about 10 s for the three collectives)"},
    {OptionId::kHelp, 'h', "help", nullptr, "this text"},
    {OptionId::kChildRank, 0, "child-rank", "R", nullptr},
    {OptionId::kUid, 0, "uid", "HEX", nullptr},
    {OptionId::kResultFile, 0, "result-file", "FILE", nullptr},
};

const OptionSpec* findShort(char name) {
  for (const OptionSpec& spec : kOptions)
    if (spec.shortName == name) return &spec;
  return nullptr;
}

const OptionSpec* findLong(const std::string& name) {
  for (const OptionSpec& spec : kOptions)
    if (name == spec.longName) return &spec;
  return nullptr;
}

std::string flagName(const OptionSpec& spec) {
  return spec.shortName ? std::string("-") + spec.shortName : std::string("--") + spec.longName;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    items.push_back(text.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

template <typename T>
void appendUnique(std::vector<T>* items, T item) {
  if (std::find(items->begin(), items->end(), item) == items->end()) items->push_back(item);
}

bool parseInteger(const OptionSpec& spec, const std::string& text, long long minimum,
                  long long maximum, long long* value, std::string* error) {
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isdigit((unsigned char)text[0])) {
    *error = flagName(spec) + ": '" + text + "' is not a whole number";
    return false;
  }
  if (parsed < minimum || parsed > maximum) {
    *error = flagName(spec) + ": " + text + " is out of range (" + std::to_string(minimum) +
             " to " + std::to_string(maximum) + ")";
    return false;
  }
  *value = parsed;
  return true;
}

template <typename T, typename ParseOne, typename All>
bool parseList(const OptionSpec& spec, const std::string& text, const char* what,
               const std::string& accepted, ParseOne parseOne, All all, std::vector<T>* out,
               std::string* error) {
  std::vector<T> items;
  for (const std::string& item : splitList(text)) {
    if (item == "all") {
      for (T each : all()) appendUnique(&items, each);
      continue;
    }
    T parsed;
    if (item.empty() || !parseOne(item, &parsed)) {
      *error = flagName(spec) + ": unknown " + what + " '" + item + "' (known: " + accepted +
               ", all)";
      return false;
    }
    appendUnique(&items, parsed);
  }
  *out = items;
  return true;
}

bool apply(const OptionSpec& spec, const std::string& value, PerfOptions* options,
           std::string* error) {
  long long number = 0;
  std::string sizeError;
  switch (spec.id) {
    case OptionId::kMinBytes:
    case OptionId::kMaxBytes: {
      size_t bytes = 0;
      if (!parseSizeBytes(value, &bytes, &sizeError)) {
        *error = flagName(spec) + ": " + sizeError;
        return false;
      }
      (spec.id == OptionId::kMinBytes ? options->minBytes : options->maxBytes) = bytes;
      return true;
    }
    case OptionId::kStepFactor:
      if (!parseInteger(spec, value, 2, 1 << 30, &number, error)) return false;
      options->stepFactor = static_cast<size_t>(number);
      return true;
    case OptionId::kIters:
      if (!parseInteger(spec, value, 1, 1000000, &number, error)) return false;
      options->iters = static_cast<int>(number);
      return true;
    case OptionId::kWarmup:
      if (!parseInteger(spec, value, 0, 1000000, &number, error)) return false;
      options->warmupIters = static_cast<int>(number);
      return true;
    case OptionId::kPairs:
      if (!parseInteger(spec, value, 1, 100, &number, error)) return false;
      options->pairs = static_cast<int>(number);
      return true;
    case OptionId::kGraph:
      if (!parseInteger(spec, value, 0, 100000, &number, error)) return false;
      options->graphOps = static_cast<int>(number);
      return true;
    case OptionId::kCollectives:
      return parseList<Collective>(spec, value, "collective", collectiveNameList(), parseCollective,
                                   allCollectives, &options->collectives, error);
    case OptionId::kDataTypes:
      return parseList<DataType>(spec, value, "datatype", dataTypeNameList(), parseDataType,
                                 allDataTypes, &options->dataTypes, error);
    case OptionId::kOps:
      return parseList<ReduceOp>(spec, value, "reduction op", reduceOpNameList(), parseReduceOp,
                                 allReduceOps, &options->reduceOps, error);
    case OptionId::kPlacement:
      if (value == "out" || value == "out-of-place" || value == "0") {
        options->placements = {Placement::kOutOfPlace};
      } else if (value == "in" || value == "in-place" || value == "1") {
        options->placements = {Placement::kInPlace};
      } else if (value == "both" || value == "all") {
        options->placements = {Placement::kOutOfPlace, Placement::kInPlace};
      } else {
        *error = flagName(spec) + ": '" + value + "' is not a placement (in, out or both)";
        return false;
      }
      return true;
    case OptionId::kThreads:
      if (!parseInteger(spec, value, 1, 1024, &number, error)) return false;
      options->threads = static_cast<int>(number);
      return true;
    case OptionId::kGpus:
      if (!parseInteger(spec, value, 1, 1024, &number, error)) return false;
      options->gpusPerThread = static_cast<int>(number);
      return true;
    case OptionId::kProcs:
      if (!parseInteger(spec, value, 1, 1024, &number, error)) return false;
      options->processes = static_cast<int>(number);
      return true;
    case OptionId::kCheck: options->check = true; return true;
    case OptionId::kNoCheck: options->check = false; return true;
    case OptionId::kSeed:
      if (!parseInteger(spec, value, 0, LLONG_MAX, &number, error)) return false;
      options->seed = static_cast<uint64_t>(number);
      return true;
    case OptionId::kTimeout:
      if (!parseInteger(spec, value, 1, 86400, &number, error)) return false;
      options->timeoutSeconds = static_cast<int>(number);
      return true;
    case OptionId::kJson: options->jsonPath = value; return true;
    case OptionId::kMarkdown: options->markdownPath = value; return true;
    case OptionId::kPlot: options->plotPath = value; return true;
    case OptionId::kMachine: options->machineLabel = value; return true;
    case OptionId::kSmoke: return true;  // applied after parsing (applySmokePreset)
    case OptionId::kHelp: options->help = true; return true;
    case OptionId::kChildRank:
      if (!parseInteger(spec, value, 0, 1023, &number, error)) return false;
      options->childRank = static_cast<int>(number);
      return true;
    case OptionId::kUid:
      if (value.size() != 2 * kUniqueIdBytes) {
        *error = "--uid: expected " + std::to_string(2 * kUniqueIdBytes) + " hex digits, got " +
                 std::to_string(value.size());
        return false;
      }
      options->uniqueIdHex = value;
      return true;
    case OptionId::kResultFile: options->resultFile = value; return true;
  }
  return false;
}

// --smoke: small sizes and few iterations, for every setting the command line did not give.
void applySmokePreset(const std::vector<OptionId>& given, PerfOptions* options) {
  auto wasGiven = [&](OptionId id) {
    return std::find(given.begin(), given.end(), id) != given.end();
  };
  if (!wasGiven(OptionId::kMinBytes)) options->minBytes = 8;
  if (!wasGiven(OptionId::kMaxBytes)) options->maxBytes = 1u << 20;
  if (!wasGiven(OptionId::kStepFactor)) options->stepFactor = 16;
  if (!wasGiven(OptionId::kIters)) options->iters = 5;
  if (!wasGiven(OptionId::kWarmup)) options->warmupIters = 2;
  if (!wasGiven(OptionId::kPairs)) options->pairs = 3;
  if (!wasGiven(OptionId::kPlacement))
    options->placements = {Placement::kOutOfPlace, Placement::kInPlace};
}

bool checkConsistency(const PerfOptions& options, std::string* error) {
  if (options.minBytes > options.maxBytes) {
    *error = "-b (" + std::to_string(options.minBytes) + " B) is larger than -e (" +
             std::to_string(options.maxBytes) + " B)";
    return false;
  }
  if (options.processes > 0 && (options.threads > 1 || options.gpusPerThread > 1)) {
    *error = "--procs runs one process per GPU; it cannot be combined with -t or -g";
    return false;
  }
  const bool child = options.childRank >= 0 || !options.uniqueIdHex.empty();
  if (child && (options.childRank < 0 || options.uniqueIdHex.empty() || options.processes <= 0)) {
    *error = "--child-rank and --uid are set by `flashccl perf --procs N` for the processes it "
             "starts; they go together, with --procs";
    return false;
  }
  if (options.childRank >= options.processes && options.childRank >= 0) {
    *error = "--child-rank " + std::to_string(options.childRank) + " is not below --procs " +
             std::to_string(options.processes);
    return false;
  }
  if (!options.uniqueIdHex.empty()) {
    unsigned char id[kUniqueIdBytes];
    if (!hexToBytes(options.uniqueIdHex, id, sizeof(id))) {
      *error = "--uid: not a hex string";
      return false;
    }
  }
  return true;
}

}  // namespace

ParseOutcome parsePerfOptions(const std::vector<std::string>& args) {
  ParseOutcome outcome;
  std::vector<OptionId> given;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const size_t firstToken = i;
    const OptionSpec* spec = nullptr;
    std::string value;
    bool haveValue = false;
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      std::string name = arg.substr(2);
      const size_t equals = name.find('=');
      if (equals != std::string::npos) {
        value = name.substr(equals + 1);
        name = name.substr(0, equals);
        haveValue = true;
      }
      spec = findLong(name);
      if (!spec) {
        outcome.error = "unknown option '--" + name + "' (see flashccl perf --help)";
        return outcome;
      }
      if (!spec->valueName && haveValue) {
        outcome.error = "--" + name + " takes no value";
        return outcome;
      }
    } else if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-') {
      spec = findShort(arg[1]);
      if (!spec) {
        outcome.error = "unknown option '" + arg.substr(0, 2) + "' (see flashccl perf --help)";
        return outcome;
      }
      if (arg.size() > 2) {
        if (!spec->valueName) {
          outcome.error = "unknown option '" + arg + "' (see flashccl perf --help)";
          return outcome;
        }
        value = arg.substr(2);  // -b8, as getopt allows
        haveValue = true;
      }
    } else {
      outcome.error = "unexpected argument '" + arg + "' (see flashccl perf --help)";
      return outcome;
    }
    if (spec->valueName && !haveValue) {
      if (i + 1 >= args.size()) {
        outcome.error = flagName(*spec) + " needs a value (" + spec->valueName + ")";
        return outcome;
      }
      value = args[++i];
    }
    if (!apply(*spec, value, &outcome.options, &outcome.error)) return outcome;
    given.push_back(spec->id);
    // Reports show the command as the user typed it: without the options the parent of --procs
    // adds for its children.
    if (spec->help)
      for (size_t t = firstToken; t <= i; ++t) outcome.options.arguments.push_back(args[t]);
  }
  if (std::find(given.begin(), given.end(), OptionId::kSmoke) != given.end()) {
    outcome.options.smoke = true;
    applySmokePreset(given, &outcome.options);
  }
  if (outcome.options.help) {
    outcome.ok = true;
    return outcome;
  }
  outcome.ok = checkConsistency(outcome.options, &outcome.error);
  return outcome;
}

std::string perfUsage() {
  std::string text =
      "usage: flashccl perf [options]\n"
      "\n"
      "Runs each collective through the real NCCL and through flashccl, alternately, on the same\n"
      "communicators, and prints one table per collective: NCCL's time and bandwidth, flashccl's,\n"
      "the speedup (median over pairs of NCCL time / flashccl time), #wrong (elements where\n"
      "flashccl's result differs from NCCL's) and the algorithm flashccl chose.\n"
      "\n"
      "options:\n";
  for (const OptionSpec& spec : kOptions) {
    if (!spec.help) continue;
    std::string flags = spec.shortName ? std::string("-") + spec.shortName + ", " : "    ";
    flags += std::string("--") + spec.longName;
    if (spec.valueName) flags += std::string(" ") + spec.valueName;
    // Wrap the description at 100 columns, continuation lines under its first word.
    const size_t indent = 35, width = 100;
    std::string line = "  " + flags;
    line.resize(std::max(line.size() + 1, indent), ' ');
    std::string word;
    const std::string help = std::string(spec.help) + " ";
    for (char c : help) {
      if (c != ' ') {
        word += c;
        continue;
      }
      if (line.size() + word.size() > width && line.size() > indent) {
        while (line.back() == ' ') line.pop_back();
        text += line + "\n";
        line = std::string(indent, ' ');
      }
      line += word + " ";
      word.clear();
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + "\n";
  }
  text +=
      "\n"
      "exit status: 0 all results right; 1 a wrong result, a failure or a hang; 2 bad usage or no\n"
      "usable GPUs. docs/perf.md explains the table, the modes and the tolerances.\n";
  return text;
}

std::string RankLayout::modeName() const {
  if (separateProcesses || processes > 1) return "processes";
  if (threads > 1 && gpusPerThread > 1) return "threads x grouped";
  if (gpusPerThread > 1) return "grouped";
  return "threads";
}

std::string RankLayout::describe() const {
  char text[160];
  if (separateProcesses || processes > 1) {
    std::snprintf(text, sizeof(text), "%d process%s x 1 GPU each (processes mode)", processes,
                  processes == 1 ? "" : "es");
  } else {
    std::snprintf(text, sizeof(text), "%d thread%s x %d GPU%s each (%s mode)", threads,
                  threads == 1 ? "" : "s", gpusPerThread, gpusPerThread == 1 ? "" : "s",
                  modeName().c_str());
  }
  return text;
}

std::string noGpuMessage(const std::string& cudaError) {
  return "flashccl perf needs NVIDIA GPUs; none found (cudaGetDeviceCount: " + cudaError + ")";
}

bool resolveRankLayout(const PerfOptions& options, int visibleGpus, RankLayout* layout,
                       std::string* error) {
  if (visibleGpus <= 0) {
    *error = noGpuMessage("0 devices");
    return false;
  }
  RankLayout resolved;
  std::string asked;
  if (options.processes > 0) {
    resolved.processes = options.processes;
    resolved.separateProcesses = true;
    asked = "--procs " + std::to_string(options.processes);
  } else {
    resolved.gpusPerThread = options.gpusPerThread > 0 ? options.gpusPerThread : 1;
    if (options.threads > 0) resolved.threads = options.threads;
    else if (options.gpusPerThread > 0) resolved.threads = 1;
    else resolved.threads = visibleGpus;
    if (options.threads > 0) asked += "-t " + std::to_string(options.threads);
    if (options.gpusPerThread > 0)
      asked += (asked.empty() ? "" : " x ") + std::string("-g ") +
               std::to_string(options.gpusPerThread);
  }
  if (resolved.nranks() > visibleGpus) {
    *error = "asked for " + std::to_string(resolved.nranks()) + " GPUs (" + asked + ") but only " +
             std::to_string(visibleGpus) + " " + (visibleGpus == 1 ? "is" : "are") +
             " visible (cudaGetDeviceCount); lower -t/-g/--procs or check CUDA_VISIBLE_DEVICES";
    return false;
  }
  *layout = resolved;
  return true;
}

std::string validateSizes(const PerfOptions& options, int nranks) {
  const std::vector<size_t> sizes =
      geometricSizes(options.minBytes, options.maxBytes, options.stepFactor);
  if (sizes.empty()) return "no sizes between -b and -e";
  for (Collective coll : options.collectives) {
    for (DataType type : options.dataTypes) {
      for (size_t bytes : sizes) {
        const std::string problem = sizeProblem(coll, bytes, type, nranks);
        if (!problem.empty()) return problem;
      }
    }
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
