#include "cli_options.h"

#include <algorithm>
#include <ostream>

#include "base/size_text.h"

namespace flashccl {
namespace cli {

const std::vector<std::string>& collectiveNames() {
  static const std::vector<std::string> names = {"allreduce", "allgather", "reducescatter"};
  return names;
}

const std::vector<std::string>& dataTypeNames() {
  static const std::vector<std::string> names = {"int8",  "uint8",  "int32", "uint32",
                                                 "int64", "uint64", "half",  "float",
                                                 "double", "bfloat16", "f8e4m3", "f8e5m2"};
  return names;
}

const std::vector<std::string>& reduceOpNames() {
  static const std::vector<std::string> names = {"sum", "prod", "max", "min", "avg", "premulsum"};
  return names;
}

const std::vector<std::pair<std::string, std::string>>& nameAliases() {
  static const std::vector<std::pair<std::string, std::string>> aliases = {{"mulsum", "premulsum"}};
  return aliases;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

CLI::Option* addNameList(CLI::App& app, const std::string& flags, const std::vector<std::string>& names,
                         std::vector<int>* out, const std::string& description, std::vector<int> allowed) {
  if (allowed.empty())
    for (int i = 0; i < static_cast<int>(names.size()); ++i) allowed.push_back(i);
  std::vector<std::string> valid;
  for (int i : allowed) valid.push_back(names[static_cast<size_t>(i)]);
  valid.push_back("all");
  std::string defaults;
  for (int i : *out) defaults += (defaults.empty() ? "" : ",") + names[static_cast<size_t>(i)];
  return app
      .add_option_function<std::string>(
          flags,
          [=, &names](const std::string& text) {
            std::vector<int> parsed;
            auto add = [&](int index) {
              if (std::find(parsed.begin(), parsed.end(), index) == parsed.end()) parsed.push_back(index);
            };
            size_t start = 0;
            for (;;) {
              const size_t comma = text.find(',', start);
              const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
              if (item == "all") {
                for (int i : allowed) add(i);
              } else {
                std::string name = item;
                for (const auto& alias : nameAliases())
                  if (alias.first == item) name = alias.second;
                const auto found = std::find(names.begin(), names.end(), name);
                const int index = found == names.end() ? -1 : static_cast<int>(found - names.begin());
                if (std::find(allowed.begin(), allowed.end(), index) == allowed.end())
                  throw CLI::ValidationError(flags.substr(flags.rfind(',') + 1),
                                             "'" + item + "' is not one of " + joinNames(valid));
                add(index);
              }
              if (comma == std::string::npos) break;
              start = comma + 1;
            }
            *out = parsed;
          },
          description)
      ->type_name("LIST")
      ->default_str(defaults);
}

CLI::Option* addCollectives(CLI::App& app, std::vector<int>* out) {
  return addNameList(app, "--coll", collectiveNames(), out,
                     "collectives, comma-separated: allreduce,allgather,reducescatter or all");
}

CLI::Option* addDataTypes(CLI::App& app, std::vector<int>* out, std::vector<int> allowed) {
  return addNameList(app, "-d,--datatype", dataTypeNames(), out,
                     "datatypes, comma-separated, nccl-tests' names (int8 ... bfloat16 f8e4m3 f8e5m2) or all",
                     std::move(allowed));
}

CLI::Option* addReduceOps(CLI::App& app, std::vector<int>* out, std::vector<int> allowed) {
  // --help lists what this command takes, nothing more: an op it rejects is not offered.
  std::string listed;
  for (size_t i = 0; i < reduceOpNames().size(); ++i) {
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), static_cast<int>(i)) == allowed.end())
      continue;
    listed += (listed.empty() ? "" : " ") + reduceOpNames()[i];
  }
  return addNameList(app, "-o,--op", reduceOpNames(), out,
                     "reduction ops, comma-separated (" + listed + ") or all", std::move(allowed));
}

CLI::Option* addSize(CLI::App& app, const std::string& flags, size_t* out, const std::string& description,
                     size_t minimum) {
  const std::string shown = flags.substr(flags.rfind(',') + 1);
  return app
      .add_option_function<std::string>(
          flags,
          [=](const std::string& text) {
            size_t bytes = 0;
            if (!parseBytes(text, &bytes))
              throw CLI::ValidationError(shown, "'" + text +
                                                    "' is not a size (whole bytes with an optional K, M, G "
                                                    "or T suffix: 8, 64K, 1M, 4G)");
            if (bytes < minimum)
              throw CLI::ValidationError(shown, "'" + text + "' is below " + std::to_string(minimum));
            *out = bytes;
          },
          description)
      ->type_name("SIZE")
      ->default_str(formatBytes(*out));
}

void addSizeRange(CLI::App& app, SizeRange* range) {
  addSize(app, "-b,--minbytes", &range->minBytes, "smallest size, whole-buffer bytes as nccl-tests counts them");
  addSize(app, "-e,--maxbytes", &range->maxBytes, "largest size");
  app.add_option("-f,--stepfactor", range->stepFactor, "multiply the size by this at each step")
      ->check(CLI::Range(size_t(2), size_t(1) << 30))
      ->capture_default_str();
}

CLI::Option* addJsonFile(CLI::App& app, std::string* path, const std::string& what) {
  return app.add_option("-J,--json,--output_file", *path, what)->type_name("FILE");
}

CLI::Option* addMarkdownFile(CLI::App& app, std::string* path, const std::string& what) {
  return app.add_option("--markdown", *path, what)->type_name("FILE");
}

CLI::Option* addQuick(CLI::App& app, bool* quick, const std::string& what) {
  return app.add_flag("--quick", *quick, what);
}

CLI::Option* addTopo(CLI::App& app, std::string* topo, const std::string& what) {
  return app.add_option("--topo", *topo, what)->type_name("FILE|NAME");
}

CLI::Option* addRanks(CLI::App& app, int* ranks, const std::string& what) {
  return app.add_option("--ranks", *ranks, what)->check(CLI::Range(1, 1 << 20));
}

int usageError(const std::string& command, const std::string& message, std::ostream& err) {
  std::string line = message;
  std::replace(line.begin(), line.end(), '\n', ' ');
  err << "flashccl " << command << ": " << line << " (flashccl " << command << " --help)\n";
  return 2;
}

int parse(CLI::App& app, const std::string& command, const std::vector<std::string>& args, std::ostream& out,
          std::ostream& err) {
  // CLI11 takes the arguments last first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& error) {
    return usageError(command, error.what(), err);
  }
  return -1;
}

}  // namespace cli
}  // namespace flashccl
