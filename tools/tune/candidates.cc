#include "candidates.h"

#include <algorithm>
#include <sstream>

#include "cli_options.h"
#include "nccl_tuner_abi.h"
#include "tuning_table.h"

namespace flashccl {
namespace tune {

namespace {

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream stream(text);
  while (std::getline(stream, item, ',')) items.push_back(item);
  if (!text.empty() && text.back() == ',') items.push_back("");
  return items;
}

bool isNvls(int algorithm) {
  return algorithm == nccl_abi::kAlgoNvls || algorithm == nccl_abi::kAlgoNvlsTree;
}

// One algorithm name in the table's spelling, or false with *error.
bool parseOneAlgorithm(const std::string& item, std::string* out, std::string* error) {
  int algorithm = 0;
  if (!parseAlgorithmName(item, &algorithm)) {
    *error = "'" + item + "' is not an NCCL algorithm (ring, tree, pat, collnet_direct or collnet_chain)";
    return false;
  }
  if (isNvls(algorithm)) {
    *error = "'" + item + "' needs NVLink multicast, which flashccl never turns on (NCCL_NVLS_ENABLE=0)";
    return false;
  }
  *out = algorithmName(algorithm);
  return true;
}

bool parseOneProtocol(const std::string& item, std::string* out, std::string* error) {
  int protocol = 0;
  if (!parseProtocolName(item, &protocol)) {
    *error = "'" + item + "' is not an NCCL protocol (ll, ll128 or simple)";
    return false;
  }
  *out = protocolName(protocol);
  return true;
}

bool parseOneChannelCount(const std::string& item, int* out, std::string* error) {
  if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(item) > 1024) {
    *error = "'" + item + "' is not a channel count (0 for NCCL's own, up to 1024)";
    return false;
  }
  *out = std::stoi(item);
  return true;
}

template <typename T, typename ParseOne>
bool parseList(const std::string& text, std::vector<T>* out, std::string* error, ParseOne parseOne) {
  std::vector<T> parsed;
  for (const std::string& item : splitCommas(text)) {
    T value{};
    if (!parseOne(item, &value, error)) return false;
    if (std::find(parsed.begin(), parsed.end(), value) == parsed.end()) parsed.push_back(value);
  }
  if (parsed.empty()) {
    *error = "the list is empty";
    return false;
  }
  *out = parsed;
  return true;
}

}  // namespace

std::string NcclChoice::forceEntry() const {
  return algorithm + ":" + protocol + (channels > 0 ? ":" + std::to_string(channels) : "");
}

std::string NcclChoice::label() const {
  return algorithm + "/" + protocol + (channels > 0 ? ", " + std::to_string(channels) + " channels" : "");
}

std::vector<NcclChoice> crossProduct(const CandidateLists& lists) {
  std::vector<NcclChoice> choices;
  for (const std::string& algorithm : lists.algorithms)
    for (const std::string& protocol : lists.protocols)
      for (int channels : lists.channels) choices.push_back({algorithm, protocol, channels});
  return choices;
}

bool parseAlgorithmList(const std::string& text, std::vector<std::string>* out, std::string* error) {
  return parseList(text, out, error, parseOneAlgorithm);
}

bool parseProtocolList(const std::string& text, std::vector<std::string>* out, std::string* error) {
  return parseList(text, out, error, parseOneProtocol);
}

bool parseChannelList(const std::string& text, std::vector<int>* out, std::string* error) {
  return parseList(text, out, error, parseOneChannelCount);
}

bool parseCandidateList(const std::string& text, std::vector<NcclChoice>* out, std::string* error) {
  return parseList(text, out, error, [](const std::string& item, NcclChoice* choice, std::string* problem) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream stream(item);
    while (std::getline(stream, field, ':')) fields.push_back(field);
    if (fields.size() < 2 || fields.size() > 3) {
      *problem = "'" + item + "' is not algorithm:protocol[:channels] (e.g. ring:ll or tree:simple:4)";
      return false;
    }
    return parseOneAlgorithm(fields[0], &choice->algorithm, problem) &&
           parseOneProtocol(fields[1], &choice->protocol, problem) &&
           (fields.size() < 3 || parseOneChannelCount(fields[2], &choice->channels, problem));
  });
}

const std::vector<FlashcclAlgorithm>& builtinFlashcclAlgorithms() {
  static const std::vector<FlashcclAlgorithm> algorithms = {
      {perf::Collective::kAllReduce, "allreduce_oneshot"},
      {perf::Collective::kAllReduce, "allreduce_twoshot"},
      {perf::Collective::kAllGather, "allgather_direct"},
      {perf::Collective::kReduceScatter, "reducescatter_direct"},
  };
  return algorithms;
}

std::vector<FlashcclAlgorithm> shippedProgramsFor(std::vector<std::string> names, int ranks) {
  std::sort(names.begin(), names.end());
  const std::string gpus = "--gpus_" + std::to_string(ranks) + "-";
  std::vector<FlashcclAlgorithm> programs;
  for (const std::string& name : names) {
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".xml") != 0 || name.find(gpus) == std::string::npos)
      continue;
    for (const std::string& coll : cli::collectiveNames()) {
      FlashcclAlgorithm program;
      if (name.compare(0, coll.size(), coll) != 0 || !perf::parseCollective(coll, &program.collective)) continue;
      program.name = name;
      programs.push_back(program);
      break;
    }
  }
  return programs;
}

bool parseFlashcclAlgorithms(const std::string& text, std::vector<FlashcclAlgorithm>* out, std::string* error,
                             bool* shipped) {
  if (shipped) *shipped = text == "all";
  if (text == "builtin" || text == "all") {
    *out = builtinFlashcclAlgorithms();
    return true;
  }
  if (text == "none") {
    out->clear();
    return true;
  }
  std::vector<FlashcclAlgorithm> parsed;
  for (const std::string& item : splitCommas(text)) {
    FlashcclAlgorithm algorithm;
    const size_t colon = item.find(':');
    if (colon != std::string::npos) {
      if (!perf::parseCollective(item.substr(0, colon), &algorithm.collective)) {
        *error = "'" + item + "': '" + item.substr(0, colon) + "' is not one of " +
                 cli::joinNames(cli::collectiveNames());
        return false;
      }
      algorithm.name = item.substr(colon + 1);
    } else {
      algorithm.name = item;
      bool found = false;
      for (const std::string& coll : cli::collectiveNames()) {
        if (item.compare(0, coll.size(), coll) == 0) {
          found = perf::parseCollective(coll, &algorithm.collective);
          break;
        }
      }
      if (!found) {
        *error = "'" + item + "': which collective does it implement? Write it as collective:" + item;
        return false;
      }
    }
    if (algorithm.name.empty()) {
      *error = "'" + item + "' names no algorithm";
      return false;
    }
    parsed.push_back(algorithm);
  }
  if (parsed.empty()) {
    *error = "the list is empty (none: no flashccl algorithm besides what flashccl's table chooses)";
    return false;
  }
  *out = parsed;
  return true;
}

}  // namespace tune
}  // namespace flashccl
