#include "plan/plan_options.h"

#include <cstring>

#include "base/size_text.h"
#include "topo/topology_file.h"

namespace flashccl {

namespace {

bool parseCount(const std::string& text, int* value) {
  if (text.empty() || text.size() > 7) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  *value = std::stoi(text);
  return *value > 0;
}

bool parseDtype(const std::string& text, ncclDataType_t* dtype) {
  // nccl-tests names (float, half, bfloat16, int32, ...) plus the usual short forms.
  static const struct { const char* alias; ncclDataType_t dtype; } kAliases[] = {
      {"fp32", ncclFloat32}, {"fp16", ncclFloat16}, {"bf16", ncclBfloat16}, {"fp64", ncclFloat64},
  };
  for (const auto& alias : kAliases) {
    if (text == alias.alias) {
      *dtype = alias.dtype;
      return true;
    }
  }
  for (int t = 0; t < int(ncclNumTypes); ++t) {
    const ncclDataType_t candidate = static_cast<ncclDataType_t>(t);
    if (dtypeSize(candidate) != 0 && text == dtypeName(candidate)) {
      *dtype = candidate;
      return true;
    }
  }
  return false;
}

bool parseOp(const std::string& text, ncclRedOp_t* op) {
  for (int o = 0; o < int(ncclNumOps); ++o) {
    if (text == redOpName(static_cast<ncclRedOp_t>(o))) {
      *op = static_cast<ncclRedOp_t>(o);
      return true;
    }
  }
  return false;
}

bool parseColls(const std::string& text, std::vector<CollKind>* colls) {
  colls->clear();
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    bool found = false;
    for (int k = 0; k < kNumCollKinds; ++k) {
      if (item == collKindName(static_cast<CollKind>(k))) {
        colls->push_back(static_cast<CollKind>(k));
        found = true;
      }
    }
    if (!found) return false;
    start = comma + 1;
  }
  return !colls->empty();
}

}  // namespace

void printPlanUsage(std::ostream& out) {
  out << "usage: flashccl plan [options]\n"
         "\n"
         "Shows which algorithm flashccl would run for each collective and size, in-place and\n"
         "out-of-place, and why (the topology row that matched, or why it falls back to NCCL).\n"
         "Works without a GPU.\n"
         "\n"
         "options:\n"
         "  --topo FILE|NAME   topology file, or the name of a shipped topology (e.g.\n"
         "                     hopper-8gpu-nvswitch). Default: FLASHCCL_TOPO_FILE, else the\n"
         "                     topology matching this machine; without a GPU, hopper-2gpu-nvlink\n"
         "  --ranks N          ranks in the communicator (default: the topology's GPU count)\n"
         "  --nodes N          nodes the communicator spans (default 1)\n"
         "  -b, --minbytes S   smallest size (default 8)\n"
         "  -e, --maxbytes S   largest size (default 4G)\n"
         "  -f, --stepfactor F multiply the size by F at each step (default 2)\n"
         "  -d, --datatype T   float (default), half, bfloat16, double, int8, uint8, int32, ...\n"
         "  -o, --op OP        sum (default), prod, max, min, avg\n"
         "  --coll LIST        collectives to show, comma-separated (default:\n"
         "                     allreduce,allgather,reducescatter)\n"
         "  --machine          also print the detected machine (GPUs, links, NUMA, NICs)\n"
         "  --check DIR        validate the MSCCL XML algorithm files in DIR and exit\n"
         "  -h, --help         this text\n"
         "\n"
         "Sizes are whole-buffer bytes as nccl-tests prints them (allreduce buffer, allgather\n"
         "output, reducescatter input) and take K, M, G suffixes. FLASHCCL_ALGO applies as it\n"
         "does in the library. Exit status: 0 fine, 1 problems found (a topology file that does\n"
         "not parse, rows this build cannot use, invalid algorithm files), 2 bad usage.\n";
}

bool parsePlanOptions(int argc, char** argv, PlanOptions* options, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool haveValue = false;
    // --name=value as well as --name value.
    if (arg.compare(0, 2, "--") == 0) {
      const size_t equals = arg.find('=');
      if (equals != std::string::npos) {
        value = arg.substr(equals + 1);
        arg.resize(equals);
        haveValue = true;
      }
    }
    auto next = [&](std::string* out) {
      if (haveValue) {
        *out = value;
        return true;
      }
      if (i + 1 >= argc) {
        *error = arg + " needs a value";
        return false;
      }
      *out = argv[++i];
      return true;
    };
    std::string text;
    if (arg == "-h" || arg == "--help") {
      options->help = true;
    } else if (arg == "--machine") {
      options->showMachine = true;
    } else if (arg == "--topo") {
      if (!next(&options->topo)) return false;
    } else if (arg == "--check") {
      if (!next(&options->checkDir)) return false;
    } else if (arg == "--ranks" || arg == "-n") {
      if (!next(&text)) return false;
      if (!parseCount(text, &options->nranks)) return (*error = "bad rank count '" + text + "'"), false;
    } else if (arg == "--nodes") {
      if (!next(&text)) return false;
      if (!parseCount(text, &options->nnodes)) return (*error = "bad node count '" + text + "'"), false;
    } else if (arg == "-b" || arg == "--minbytes") {
      if (!next(&text)) return false;
      if (!parseBytes(text, &options->minBytes)) return (*error = "bad size '" + text + "'"), false;
    } else if (arg == "-e" || arg == "--maxbytes") {
      if (!next(&text)) return false;
      if (!parseBytes(text, &options->maxBytes)) return (*error = "bad size '" + text + "'"), false;
    } else if (arg == "-f" || arg == "--stepfactor") {
      if (!next(&text)) return false;
      int factor = 0;
      if (!parseCount(text, &factor) || factor < 2) {
        return (*error = "step factor must be an integer >= 2, not '" + text + "'"), false;
      }
      options->stepFactor = size_t(factor);
    } else if (arg == "-d" || arg == "--datatype") {
      if (!next(&text)) return false;
      if (!parseDtype(text, &options->dtype)) return (*error = "unknown datatype '" + text + "'"), false;
    } else if (arg == "-o" || arg == "--op") {
      if (!next(&text)) return false;
      if (!parseOp(text, &options->op)) return (*error = "unknown reduction '" + text + "'"), false;
    } else if (arg == "--coll") {
      if (!next(&text)) return false;
      if (!parseColls(text, &options->colls)) {
        return (*error = "--coll takes allreduce, allgather, reducescatter (comma-separated), not '" +
                         text + "'"), false;
      }
    } else {
      *error = "unknown option '" + std::string(argv[i]) + "'";
      return false;
    }
  }
  if (options->minBytes == 0) options->minBytes = 1;
  if (options->maxBytes < options->minBytes) {
    *error = "largest size (-e) is below the smallest (-b)";
    return false;
  }
  return true;
}

std::vector<size_t> planSizes(const PlanOptions& options) {
  std::vector<size_t> sizes;
  for (size_t size = options.minBytes; size <= options.maxBytes;) {
    sizes.push_back(size);
    if (size > options.maxBytes / options.stepFactor) break;  // next step would pass max (or overflow)
    size *= options.stepFactor;
  }
  return sizes;
}

}  // namespace flashccl
