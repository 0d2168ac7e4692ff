// The command line every `flashccl` subcommand shares (docs/cli.md): value spellings, option names,
// defaults, and the one-line usage error. Every option that several commands take is declared here
// once (docs/cli.md, "Shared options"), so it is spelt and means the same in each of them.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace flashccl {
namespace cli {

// Spellings, nccl-tests' where it has them. Each list is in its enum's order, so an index is the
// value: collectives as CollKind (AllReduce, AllGather, ReduceScatter), datatypes as ncclDataType_t,
// reduction ops as ncclRedOp_t (premulsum, created per communicator in NCCL, comes last).
const std::vector<std::string>& collectiveNames();  // allreduce allgather reducescatter
const std::vector<std::string>& dataTypeNames();    // int8 uint8 ... bfloat16 f8e4m3 f8e5m2
const std::vector<std::string>& reduceOpNames();    // sum prod max min avg premulsum

// Other spellings a name list accepts for one of its names: nccl-tests writes premulsum "mulsum".
const std::vector<std::pair<std::string, std::string>>& nameAliases();  // {alias, name}

// Shared defaults.
constexpr size_t kDefaultMinBytes = 8;
constexpr size_t kDefaultMaxBytes = size_t(128) << 20;
constexpr size_t kDefaultStepFactor = 2;

// A comma-separated list of names from `names` (or "all": every name in `allowed`, in list order),
// stored as indices into `names`, in the order given, repeats dropped. `allowed` (indices) limits
// what a command supports; empty means all of `names`.
CLI::Option* addNameList(CLI::App& app, const std::string& flags, const std::vector<std::string>& names,
                         std::vector<int>* out, const std::string& description,
                         std::vector<int> allowed = {});

// --coll, -d/--datatype, -o/--op with the shared spellings.
CLI::Option* addCollectives(CLI::App& app, std::vector<int>* out);
CLI::Option* addDataTypes(CLI::App& app, std::vector<int>* out, std::vector<int> allowed = {});
CLI::Option* addReduceOps(CLI::App& app, std::vector<int>* out, std::vector<int> allowed = {});

// A size in bytes with K/M/G/T suffixes (parseBytes); at least `minimum`.
CLI::Option* addSize(CLI::App& app, const std::string& flags, size_t* out, const std::string& description,
                     size_t minimum = 1);

// -b/--minbytes, -e/--maxbytes, -f/--stepfactor with the shared defaults.
struct SizeRange {
  size_t minBytes = kDefaultMinBytes;
  size_t maxBytes = kDefaultMaxBytes;
  size_t stepFactor = kDefaultStepFactor;
};
void addSizeRange(CLI::App& app, SizeRange* range);

// -J/--json FILE (also nccl-tests' --output_file) and --markdown FILE.
CLI::Option* addJsonFile(CLI::App& app, std::string* path, const std::string& what);
CLI::Option* addMarkdownFile(CLI::App& app, std::string* path, const std::string& what);

// --quick: the command's short preset (what it shortens is the command's; `what` says it).
CLI::Option* addQuick(CLI::App& app, bool* quick, const std::string& what);

// --topo FILE|NAME: a topology file, or the name of a shipped one (with or without .xml).
CLI::Option* addTopo(CLI::App& app, std::string* topo, const std::string& what);

// --ranks N: ranks in the communicator, 1 to 2^20.
CLI::Option* addRanks(CLI::App& app, int* ranks, const std::string& what);

// Parses args (what followed the subcommand's name). Returns -1 to go on, or the exit status:
// 0 after printing --help to `out`, 2 after one line on `err`: "flashccl <command>: <what is
// wrong> (flashccl <command> --help)".
int parse(CLI::App& app, const std::string& command, const std::vector<std::string>& args, std::ostream& out,
          std::ostream& err);

// The one-line usage error of every subcommand; returns 2 (the usage exit status).
int usageError(const std::string& command, const std::string& message, std::ostream& err);

// "a, b or c".
std::string joinNames(const std::vector<std::string>& names);

// Between a name list's indices and the enum they index (the lists are in enum order).
template <typename Enum>
std::vector<int> toIndices(const std::vector<Enum>& values) {
  std::vector<int> indices;
  for (Enum v : values) indices.push_back(static_cast<int>(v));
  return indices;
}
template <typename Enum>
std::vector<Enum> fromIndices(const std::vector<int>& indices) {
  std::vector<Enum> values;
  for (int i : indices) values.push_back(static_cast<Enum>(i));
  return values;
}

}  // namespace cli
}  // namespace flashccl
