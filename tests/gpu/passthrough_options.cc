#include "passthrough_options.h"

#include <algorithm>
#include <cstdlib>

namespace flashccl_gpu_test::passthrough {

const char* const kUsage =
    "usage: flashccl_passthrough_check [--threads] [--procs] [--eager] [--graph] [--ranks N]\n"
    "           [--counts 1,1001,1048576] [--mode-timeout S] [--case-timeout S]\n"
    "           [--markdown FILE] [--machine TEXT] [--one-gpu]\n"
    "Runs every NCCL collective and send/recv through flashccl and through the real NCCL on the\n"
    "same communicators and compares the outputs bitwise. Meant for FLASHCCL_DISABLE=1\n"
    "(pass-through); without it flashccl's own kernels are compared the same way. Needs >= 2 GPUs.\n"
    "  --threads / --procs   one process with a thread per GPU / one process per GPU (default both)\n"
    "  --eager / --graph     direct calls / each call captured into a CUDA graph (default both)\n"
    "  --ranks N             ranks (GPUs 0..N-1); default every visible GPU, at most 8\n"
    "  --counts LIST         the calls' count arguments (default 1,1001,1048576)\n"
    "  --mode-timeout S      stop a mode that runs longer (default 55)\n"
    "  --case-timeout S      a rank gives up waiting for one call after S (default 20)\n"
    "  --markdown FILE       write a record for bench/results/\n"
    "  --machine TEXT        the machine, for the record\n"
    "  --one-gpu             every rank on GPU 0, one process each with its own NCCL_HOSTID\n"
    "                        (procs mode; NCCL joins them through sockets; default 2 ranks)\n";

namespace {

bool parseNumber(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return !text.empty() && end != nullptr && *end == '\0' && *value > 0;
}

bool parseCounts(const std::string& text, std::vector<size_t>* counts) {
  counts->clear();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const unsigned long long value = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value == 0) return false;
    counts->push_back(static_cast<size_t>(value));
    start = comma + 1;
  }
  return !counts->empty();
}

std::string quoted(const std::string& argument) {
  if (!argument.empty() && argument.find_first_of(" \t'\"$\\|&;()<>*?") == std::string::npos)
    return argument;
  std::string out = "'";
  for (char ch : argument) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace

bool parseOptions(int argc, char** argv, Options* options, std::string* error) {
  Options o;
  o.commandLine = "flashccl_passthrough_check";
  for (int i = 1; i < argc; ++i) o.commandLine += " " + quoted(argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) {
        *error = flag + " needs a value";
        return false;
      }
      *out = argv[++i];
      return true;
    };
    std::string text;
    double number = 0;
    if (flag == "--threads") o.threads = true;
    else if (flag == "--procs") o.procs = true;
    else if (flag == "--eager") o.eager = true;
    else if (flag == "--graph") o.graph = true;
    else if (flag == "--one-gpu") o.oneGpu = true;
    else if (flag == "--help" || flag == "-h") o.help = true;
    else if (flag == "--markdown") { if (!value(&o.markdownPath)) return false; }
    else if (flag == "--machine") { if (!value(&o.machine)) return false; }
    else if (flag == "--ranks") {
      if (!value(&text)) return false;
      if (!parseNumber(text, &number) || number < 2 || number > 8 || number != static_cast<int>(number)) {
        *error = "--ranks takes 2 to 8, not '" + text + "'";
        return false;
      }
      o.ranks = static_cast<int>(number);
    } else if (flag == "--counts") {
      if (!value(&text)) return false;
      if (!parseCounts(text, &o.counts)) {
        *error = "--counts takes positive integers separated by commas, not '" + text + "'";
        return false;
      }
    } else if (flag == "--mode-timeout" || flag == "--case-timeout") {
      if (!value(&text)) return false;
      if (!parseNumber(text, &number)) {
        *error = flag + " takes a positive number of seconds, not '" + text + "'";
        return false;
      }
      (flag == "--mode-timeout" ? o.modeTimeoutS : o.caseTimeoutS) = number;
    } else {
      *error = "unknown argument '" + flag + "'";
      return false;
    }
  }
  if (o.oneGpu && o.threads) {
    *error = "--one-gpu runs ranks as processes (NCCL refuses two ranks of one device in one process)";
    return false;
  }
  if (o.oneGpu) o.procs = true;
  if (!o.threads && !o.procs) o.threads = o.procs = true;
  if (!o.eager && !o.graph) o.eager = o.graph = true;
  *options = o;
  return true;
}

}  // namespace flashccl_gpu_test::passthrough
