#include "forced_choice.h"

#include <sstream>
#include <vector>

namespace flashccl {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream stream(text);
  while (std::getline(stream, item, separator)) items.push_back(item);
  if (!text.empty() && text.back() == separator) items.push_back("");
  return items;
}

std::string withoutSpaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ' && c != '\t') out += c;
  }
  return out;
}

bool parseChannels(const std::string& text, int* channels) {
  if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  *channels = std::stoi(text);
  return true;
}

// One entry: [collective:]algorithm:protocol[:channels] or [collective:]nccl[:channels].
bool parseEntry(const std::string& entry, TuningRow* row, std::string* problem) {
  const std::vector<std::string> fields = split(entry, ':');
  size_t next = 0;
  if (parseCollectiveName(fields[0], &row->coll)) ++next;
  if (next == fields.size()) {
    *problem = "no algorithm after the collective";
    return false;
  }
  if (fields[next] == "nccl") {
    ++next;
  } else {
    if (!parseAlgorithmName(fields[next], &row->algorithm)) {
      *problem = "'" + fields[next] + "' is neither a collective (broadcast, reduce, allgather, "
                 "reducescatter, allreduce) nor an algorithm (tree, ring, collnet_direct, "
                 "collnet_chain, nvls, nvls_tree, pat, nccl)";
      return false;
    }
    if (++next == fields.size() || !parseProtocolName(fields[next], &row->protocol)) {
      *problem = "an algorithm needs a protocol after it (ll, ll128, simple)";
      return false;
    }
    ++next;
  }
  if (next < fields.size() && !parseChannels(fields[next++], &row->channels)) {
    *problem = "'" + fields[next - 1] + "' is not a channel count";
    return false;
  }
  if (next < fields.size()) {
    *problem = "too many fields (expected [collective:]algorithm:protocol[:channels])";
    return false;
  }
  return true;
}

}  // namespace

bool parseForcedChoice(const std::string& text, TuningTable* out, std::string* error) {
  *out = TuningTable();
  out->origin = kForceVariable;
  out->forced = true;
  const std::vector<std::string> entries = split(withoutSpaces(text), ',');
  const auto entryError = [&](size_t i, const std::string& problem) {
    *error = std::string(kForceVariable) + "=\"" + text + "\": entry " + std::to_string(i + 1) +
             " '" + entries[i] + "': " + problem;
    return false;
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    TuningRow row;
    row.source = std::string(kForceVariable) + " entry " + std::to_string(i + 1) + " '" +
                 entries[i] + "'";
    std::string problem = "empty entry";
    if (entries[i].empty() || !parseEntry(entries[i], &row, &problem)) return entryError(i, problem);
    out->rows.push_back(row);
  }
  if (out->rows.empty()) {
    *error = std::string(kForceVariable) + " is set but names no choice";
    return false;
  }
  size_t later = 0;
  std::string problem;
  return checkRowConflicts(out->rows, &later, &problem) || entryError(later, problem);
}

}  // namespace flashccl
