#include "expectations.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "base/config.h"

namespace flashccl {
namespace doctor {

namespace {

using json = nlohmann::json;

struct ScalarKey {
  const char* name;
  double Expectations::*field;
};

const ScalarKey kScalarKeys[] = {
    {"h2d_gbps", &Expectations::h2dGBps},
    {"d2h_gbps", &Expectations::d2hGBps},
    {"memory_gbps", &Expectations::memoryGBps},
    {"pair_copy_engine_gbps", &Expectations::pairCopyEngineGBps},
    {"pair_sm_store_gbps", &Expectations::pairSmStoreGBps},
    {"pair_latency_us", &Expectations::pairLatencyMicros},
    {"nic_rate_gbps", &Expectations::nicRateGbps},
};

std::string knownKeys() {
  std::string text = "busbw";
  for (const ScalarKey& key : kScalarKeys) text += std::string(", ") + key.name;
  return text;
}

std::string collectiveList() {
  std::string text;
  for (const std::string& name : collectiveNames()) text += (text.empty() ? "" : "|") + name;
  return text;
}

bool parseSize(const json& value, size_t* bytes) {
  if (value.is_number_unsigned()) {
    *bytes = value.get<size_t>();
    return true;
  }
  return value.is_string() && parseBytes(value.get<std::string>(), bytes);
}

bool positiveNumber(const json& value, double* out) {
  if (!value.is_number()) return false;
  *out = value.get<double>();
  return *out > 0.0;
}

bool parseBusbwEntry(const json& entry, const std::string& where, BusbwFloor* floor,
                     std::string* error) {
  if (!entry.is_object()) {
    *error = where + ": expected an object {collective, ranks, bytes, min_gbps}";
    return false;
  }
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    const std::string& key = it.key();
    if (key != "collective" && key != "ranks" && key != "bytes" && key != "min_gbps") {
      *error = where + ": unknown key '" + key + "' (known: collective, ranks, bytes, min_gbps)";
      return false;
    }
  }
  if (!entry.contains("collective") || !entry["collective"].is_string() ||
      !normalizeCollectiveName(entry["collective"].get<std::string>(), &floor->collective)) {
    *error = where + ": collective must be one of " + collectiveList();
    return false;
  }
  if (entry.contains("ranks")) {
    if (!entry["ranks"].is_number_unsigned() || entry["ranks"].get<int>() < 1) {
      *error = where + ": ranks must be a positive whole number";
      return false;
    }
    floor->ranks = entry["ranks"].get<int>();
  }
  if (!entry.contains("bytes") || !parseSize(entry["bytes"], &floor->bytes) || floor->bytes == 0) {
    *error = where + ": bytes must be a size (a number, or text with K, M or G)";
    return false;
  }
  if (!entry.contains("min_gbps") || !positiveNumber(entry["min_gbps"], &floor->minGBps)) {
    *error = where + ": min_gbps must be a positive number";
    return false;
  }
  return true;
}

void addFloor(std::vector<BusbwFloor>* floors, const BusbwFloor& floor) {
  auto same = std::find_if(floors->begin(), floors->end(), [&](const BusbwFloor& f) {
    return f.collective == floor.collective && f.ranks == floor.ranks && f.bytes == floor.bytes;
  });
  if (same != floors->end()) *same = floor;
  else floors->push_back(floor);
}

}  // namespace

const std::vector<std::string>& collectiveNames() {
  static const std::vector<std::string> names = {"allreduce", "allgather", "reducescatter",
                                                 "alltoall"};
  return names;
}

bool normalizeCollectiveName(const std::string& text, std::string* name) {
  std::string folded;
  for (char c : text) {
    if (c == '_' || c == '-') continue;
    folded += char(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const std::string& known : collectiveNames()) {
    if (folded == known) {
      *name = known;
      return true;
    }
  }
  return false;
}

const BusbwFloor* Expectations::floorFor(const std::string& collective, int ranks,
                                         size_t bytes) const {
  const BusbwFloor* best = nullptr;
  for (const BusbwFloor& floor : busbw) {
    if (floor.collective != collective || floor.bytes != bytes) continue;
    if (floor.ranks != 0 && floor.ranks != ranks) continue;
    // A floor for this exact rank count beats one for any rank count.
    if (best == nullptr || (best->ranks == 0 && floor.ranks != 0)) best = &floor;
  }
  return best;
}

bool parseExpectationJson(const std::string& text, const std::string& source, Expectations* out,
                          std::string* error) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    *error = source + ": not JSON: " + e.what();
    return false;
  }
  if (!document.is_object()) {
    *error = source + ": expected a JSON object with keys " + knownKeys();
    return false;
  }
  Expectations parsed;
  for (auto it = document.begin(); it != document.end(); ++it) {
    const std::string& key = it.key();
    if (key == "busbw") {
      if (!it.value().is_array()) {
        *error = source + ": busbw must be a list";
        return false;
      }
      for (size_t i = 0; i < it.value().size(); ++i) {
        BusbwFloor floor;
        const std::string where = source + ": busbw[" + std::to_string(i) + "]";
        if (!parseBusbwEntry(it.value()[i], where, &floor, error)) return false;
        floor.source = source;
        addFloor(&parsed.busbw, floor);
      }
      continue;
    }
    const ScalarKey* scalar = nullptr;
    for (const ScalarKey& candidate : kScalarKeys) {
      if (key == candidate.name) scalar = &candidate;
    }
    if (scalar == nullptr) {
      *error = source + ": unknown key '" + key + "' (known: " + knownKeys() + ")";
      return false;
    }
    if (!positiveNumber(it.value(), &(parsed.*(scalar->field)))) {
      *error = source + ": " + key + " must be a positive number";
      return false;
    }
  }
  parsed.sources.push_back(source);
  mergeExpectations(out, parsed);
  return true;
}

bool loadExpectationFile(const std::string& path, Expectations* out, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseExpectationJson(text.str(), path, out, error);
}

bool parseTopologyExpectations(const std::string& xmlText, const std::string& path,
                               Expectations* out, std::string* error) {
  pugi::xml_document document;
  const pugi::xml_parse_result result = document.load_buffer(xmlText.data(), xmlText.size());
  if (!result) {
    *error = path + ": XML error: " + result.description();
    return false;
  }
  const std::string file = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  auto lineOf = [&](const pugi::xml_node& node) {
    const ptrdiff_t offset = node.offset_debug();
    return 1 + std::count(xmlText.begin(), xmlText.begin() + std::max<ptrdiff_t>(0, offset), '\n');
  };
  Expectations parsed;
  // One <doctor> at most (the library's parser refuses a second).
  if (const pugi::xml_node section = document.child("topology").child("doctor")) {
    for (const pugi::xml_node& node : section.children()) {
      if (node.type() != pugi::node_element) continue;
      const std::string where = path + ":" + std::to_string(lineOf(node));
      if (std::strcmp(node.name(), "busbw") != 0) {
        *error = where + ": unknown element <" + node.name() + "> in <doctor> (expected <busbw>)";
        return false;
      }
      for (const pugi::xml_attribute& attribute : node.attributes()) {
        const std::string name = attribute.name();
        if (name != "coll" && name != "ranks" && name != "bytes" && name != "min") {
          *error = where + ": unknown attribute '" + name + "' on <busbw> (expected coll, "
                   "ranks, bytes, min)";
          return false;
        }
      }
      BusbwFloor floor;
      if (!normalizeCollectiveName(node.attribute("coll").value(), &floor.collective)) {
        *error = where + ": coll must be one of " + collectiveList();
        return false;
      }
      floor.ranks = node.attribute("ranks").as_int(0);
      if (node.attribute("ranks") && floor.ranks < 1) {
        *error = where + ": ranks must be a positive whole number";
        return false;
      }
      if (!parseBytes(node.attribute("bytes").value(), &floor.bytes) || floor.bytes == 0) {
        *error = where + ": bytes must be a size (a number, or with K, M or G)";
        return false;
      }
      floor.minGBps = node.attribute("min").as_double(0.0);
      if (floor.minGBps <= 0.0) {
        *error = where + ": min must be a positive busbw in GB/s";
        return false;
      }
      floor.source = file + ":" + std::to_string(lineOf(node));
      addFloor(&parsed.busbw, floor);
    }
  }
  if (!parsed.busbw.empty()) parsed.sources.push_back(path);
  mergeExpectations(out, parsed);
  return true;
}

void mergeExpectations(Expectations* base, const Expectations& override) {
  for (const BusbwFloor& floor : override.busbw) addFloor(&base->busbw, floor);
  for (const ScalarKey& key : kScalarKeys) {
    if (override.*(key.field) > 0.0) base->*(key.field) = override.*(key.field);
  }
  base->sources.insert(base->sources.end(), override.sources.begin(), override.sources.end());
}

}  // namespace doctor
}  // namespace flashccl
