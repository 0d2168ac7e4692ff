#include "topo/topology_file.h"

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <pugixml.hpp>

#include "base/hash.h"
#include "base/size_text.h"

namespace flashccl {

namespace {

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// "a|b | c" -> {"a", "b", "c"}; empty items are kept so the caller can reject them.
std::vector<std::string> splitAlternatives(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream stream(text);
  while (std::getline(stream, item, '|')) items.push_back(trim(item));
  if (!text.empty() && text.back() == '|') items.push_back("");
  return items;
}

bool parsePositiveInt(const std::string& text, int* value) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  *value = std::stoi(text);
  return *value > 0;
}

bool parseCollKind(const std::string& text, CollKind* kind) {
  for (int k = 0; k < kNumCollKinds; ++k) {
    if (text == collKindName(static_cast<CollKind>(k))) {
      *kind = static_cast<CollKind>(k);
      return true;
    }
  }
  return false;
}

bool validName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// What a <selection> or <group> passes down to the rows inside it.
struct RowDefaults {
  bool haveKind = false;
  CollKind kind = CollKind::kAllReduce;
  int nranks = 0;
  int nnodes = 0;
  bool unmeasured = false;  // inside a <group measured="no">
};

class TopologyParser {
 public:
  TopologyParser(const std::string& text, const std::string& path)
      : text_(text), path_(path), file_(baseName(path)) {}

  bool parse(TopologyDescription* out, std::string* error) {
    const bool ok = parseDocument(out);
    if (!ok && error) *error = error_;
    return ok;
  }

 private:
  int lineAt(ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const size_t end = std::min(size_t(offset), text_.size());
    return 1 + int(std::count(text_.begin(), text_.begin() + end, '\n'));
  }
  int lineOf(const pugi::xml_node& node) const { return lineAt(node.offset_debug()); }

  bool fail(int line, const std::string& message) {
    error_ = path_ + ":" + std::to_string(line) + ": " + message;
    return false;
  }
  bool fail(const pugi::xml_node& node, const std::string& message) {
    return fail(lineOf(node), message);
  }

  // Every attribute of `node` must be one of `allowed`: a misspelt attribute in a selection
  // table would otherwise silently widen a row.
  bool checkAttributes(const pugi::xml_node& node, std::initializer_list<const char*> allowed) {
    for (const pugi::xml_attribute& attribute : node.attributes()) {
      bool known = false;
      for (const char* name : allowed) known = known || std::strcmp(name, attribute.name()) == 0;
      if (known) continue;
      std::string list;
      for (const char* name : allowed) list += std::string(list.empty() ? "" : ", ") + name;
      return fail(node, std::string("unknown attribute '") + attribute.name() + "' on <" +
                            node.name() + "> (expected " + list + ")");
    }
    return true;
  }

  // Element children only; text between elements is an error (comments are fine).
  bool checkNoText(const pugi::xml_node& node) {
    for (const pugi::xml_node& child : node.children()) {
      if ((child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) &&
          !trim(child.value()).empty()) {
        return fail(child, std::string("unexpected text in <") + node.name() + ">");
      }
    }
    return true;
  }

  // <match> and <row> hold attributes only.
  bool checkLeaf(const pugi::xml_node& node) {
    for (const pugi::xml_node& child : node.children()) {
      if (child.type() == pugi::node_element) {
        return fail(child, std::string("<") + node.name() + "> takes no child elements");
      }
    }
    return checkNoText(node);
  }

  bool parseDocument(TopologyDescription* out) {
    pugi::xml_document doc;
    const pugi::xml_parse_result result =
        doc.load_buffer(text_.data(), text_.size(), pugi::parse_default);
    if (!result) return fail(lineAt(result.offset), std::string("XML error: ") + result.description());

    pugi::xml_node root;
    for (const pugi::xml_node& child : doc.children()) {
      if (child.type() != pugi::node_element) continue;
      if (root) return fail(child, "more than one top-level element");
      root = child;
    }
    if (!root) return fail(1, "no <topology> element");
    if (std::strcmp(root.name(), "topology") != 0) {
      return fail(root, std::string("top-level element is <") + root.name() + ">, expected <topology>");
    }
    if (!checkAttributes(root, {"name", "description"}) || !checkNoText(root)) return false;

    *out = TopologyDescription();
    out->path = path_;
    out->name = root.attribute("name").value();
    if (!root.attribute("name")) return fail(root, "<topology> needs a name");
    if (!validName(out->name)) {
      return fail(root, "topology name '" + out->name + "' may use only letters, digits, '-', '_' and '.'");
    }
    out->description = root.attribute("description").value();
    out->table.name = out->name;

    int selections = 0, tunings = 0, doctors = 0, measurements = 0;
    for (const pugi::xml_node& child : root.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::strcmp(child.name(), "tuning") == 0) {
        // NCCL's own choices for this machine: read and checked by the tuner plugin
        // (plugins/tuner), not by the library.
        if (++tunings > 1) return fail(child, "more than one <tuning>");
      } else if (std::strcmp(child.name(), "doctor") == 0) {
        // Busbw floors of this machine type: read and checked by `flashccl doctor`
        // (tools/doctor), not by the library.
        if (++doctors > 1) return fail(child, "more than one <doctor>");
      } else if (std::strcmp(child.name(), "measurement") == 0) {
        if (++measurements > 1) return fail(child, "more than one <measurement>");
        if (!parseMeasurement(child, &out->measurement)) return false;
        out->hasMeasurement = true;
      } else if (std::strcmp(child.name(), "match") == 0) {
        MachineMatch match;
        if (!parseMatch(child, &match)) return false;
        out->matches.push_back(match);
      } else if (std::strcmp(child.name(), "selection") == 0) {
        if (++selections > 1) return fail(child, "more than one <selection>");
        // measured="bench/results/..." names the runs the rows come from on this machine class;
        // "no" (or none) says they were not measured there.
        const std::string measured = child.attribute("measured").value();
        out->table.measuredBy = measured == "no" ? "" : measured;
        out->table.unmeasured = out->table.measuredBy.empty();
        RowDefaults defaults;
        if (!parseRowContainer(child, defaults, &out->table.rows, /*selection=*/true)) return false;
      } else {
        return fail(child, std::string("unknown element <") + child.name() +
                               "> in <topology> (expected <match>, <measurement>, <selection>, "
                               "<tuning> or <doctor>)");
      }
    }
    if (selections == 0) return fail(root, "<topology> has no <selection>");
    out->table.contentHash = fnv1a(kFnvOffset, text_);
    return true;
  }

  // <measurement>: what the rows were measured on (topo/table_measurement.h). Every attribute is
  // optional text except the counts, which must be numbers: a table that cannot say what it was
  // measured on is refused at load by the comparison, not here.
  bool parseMeasurement(const pugi::xml_node& node, TableMeasurement* m) {
    if (!checkAttributes(node, {"gpu", "gpus", "interconnect", "links", "driver", "cuda", "nccl", "flashccl",
                                "kernels", "commit", "date", "command"}) ||
        !checkLeaf(node)) {
      return false;
    }
    m->gpu = node.attribute("gpu").value();
    m->interconnect = node.attribute("interconnect").value();
    m->driver = node.attribute("driver").value();
    m->cudaRuntime = node.attribute("cuda").value();
    m->nccl = node.attribute("nccl").value();
    m->flashccl = node.attribute("flashccl").value();
    m->commit = node.attribute("commit").value();
    m->date = node.attribute("date").value();
    m->command = node.attribute("command").value();
    for (const char* name : {"gpus", "links", "kernels"}) {
      pugi::xml_attribute attribute = node.attribute(name);
      if (!attribute) continue;
      int value = 0;
      const std::string text = trim(attribute.value());
      if (text != "0" && !parsePositiveInt(text, &value)) {
        return fail(node, std::string(name) + "=\"" + attribute.value() + "\" on <measurement> is not a count");
      }
      (std::strcmp(name, "gpus") == 0 ? m->gpus : std::strcmp(name, "links") == 0 ? m->links : m->kernels) = value;
    }
    return true;
  }

  bool parseMatch(const pugi::xml_node& node, MachineMatch* match) {
    if (!checkAttributes(node, {"gpu", "gpus", "interconnect"})) return false;
    if (!checkLeaf(node)) return false;
    match->line = lineOf(node);
    if (!node.attribute("gpu") && !node.attribute("gpus") && !node.attribute("interconnect")) {
      return fail(node, "<match> needs at least one of gpu, gpus, interconnect");
    }
    if (pugi::xml_attribute gpu = node.attribute("gpu")) {
      for (const std::string& pattern : splitAlternatives(gpu.value())) {
        if (pattern.empty()) return fail(node, "empty GPU name pattern in gpu=\"" + std::string(gpu.value()) + "\"");
        match->gpuPatterns.push_back(pattern);
      }
    }
    if (pugi::xml_attribute gpus = node.attribute("gpus")) {
      for (const std::string& item : splitAlternatives(gpus.value())) {
        int count = 0;
        if (!parsePositiveInt(item, &count)) {
          return fail(node, "gpus=\"" + std::string(gpus.value()) + "\": '" + item +
                                "' is not a positive GPU count");
        }
        match->gpuCounts.push_back(count);
      }
    }
    if (pugi::xml_attribute interconnect = node.attribute("interconnect")) {
      for (const std::string& item : splitAlternatives(interconnect.value())) {
        Interconnect kind;
        if (!parseInterconnect(item, &kind)) {
          return fail(node, "unknown interconnect '" + item +
                                "' (expected nvswitch, nvlink-direct, pcie, none or unknown)");
        }
        match->interconnects.push_back(kind);
      }
    }
    return true;
  }

  bool parseDefaults(const pugi::xml_node& node, RowDefaults* defaults) {
    if (pugi::xml_attribute coll = node.attribute("coll")) {
      if (!parseCollKind(coll.value(), &defaults->kind)) {
        return fail(node, "unknown collective '" + std::string(coll.value()) +
                              "' (expected allreduce, allgather or reducescatter)");
      }
      defaults->haveKind = true;
    }
    if (!parseCount(node, "ranks", &defaults->nranks)) return false;
    if (!parseCount(node, "nodes", &defaults->nnodes)) return false;
    return true;
  }

  // Ranks may differ in placement (NCCL allows in-place on one rank and out-of-place on another),
  // and every rank must pick the same algorithm: a row cannot depend on it.
  bool refusePlacement(const pugi::xml_node& node) {
    if (!node.attribute("placement")) return true;
    return fail(node, "placement cannot select an algorithm (the ranks of one call may differ in "
                      "in-place vs out-of-place); remove the attribute");
  }

  // ranks="8" / nodes="1"; "any" means no constraint (stored as 0, as SelectionRow does).
  bool parseCount(const pugi::xml_node& node, const char* name, int* value) {
    pugi::xml_attribute attribute = node.attribute(name);
    if (!attribute) return true;
    const std::string text = attribute.value();
    if (text == "any") {
      *value = 0;
      return true;
    }
    if (!parsePositiveInt(text, value)) {
      return fail(node, std::string(name) + "=\"" + text + "\" is not a positive number or 'any'");
    }
    return true;
  }

  // <selection> and <group>: rows and nested groups, in order.
  bool parseRowContainer(const pugi::xml_node& node, RowDefaults defaults, std::vector<SelectionRow>* rows,
                         bool selection = false) {
    // measured: on <selection>, where the whole table was measured ("no": nowhere); on a <group>,
    // only "no": rows the table's runs do not cover, such as model bands for another node count.
    const bool attributesOk = checkAttributes(node, {"coll", "ranks", "nodes", "measured"});
    if (!refusePlacement(node) || !attributesOk || !checkNoText(node) || !parseDefaults(node, &defaults)) {
      return false;
    }
    if (!selection && node.attribute("measured")) {
      if (std::strcmp(node.attribute("measured").value(), "no") != 0) {
        return fail(node, std::string("measured=\"") + node.attribute("measured").value() +
                              "\" on a <group> can only be \"no\" (the <selection>'s measured names the runs)");
      }
      defaults.unmeasured = true;
    }
    for (const pugi::xml_node& child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::strcmp(child.name(), "row") == 0) {
        SelectionRow row;
        if (!parseRow(child, defaults, &row)) return false;
        rows->push_back(row);
      } else if (std::strcmp(child.name(), "group") == 0) {
        if (!parseRowContainer(child, defaults, rows)) return false;
      } else {
        return fail(child, std::string("unknown element <") + child.name() + "> in <" +
                               node.name() + "> (expected <row> or <group>)");
      }
    }
    return true;
  }

  bool parseRow(const pugi::xml_node& node, RowDefaults defaults, SelectionRow* row) {
    if (!refusePlacement(node) ||
        !checkAttributes(node, {"coll", "ranks", "nodes", "minBytes", "maxBytes", "algorithm", "speedup",
                                "spread"})) {
      return false;
    }
    if (!checkLeaf(node)) return false;
    if (!parseDefaults(node, &defaults)) return false;
    if (!defaults.haveKind) {
      return fail(node, "row has no coll (allreduce, allgather or reducescatter), neither on the "
                        "row nor on an enclosing <group>");
    }
    row->kind = defaults.kind;
    row->nranks = defaults.nranks;
    row->nnodes = defaults.nnodes;
    row->unmeasured = defaults.unmeasured;
    for (const char* name : {"minBytes", "maxBytes"}) {
      pugi::xml_attribute attribute = node.attribute(name);
      if (!attribute) continue;
      size_t bytes = 0;
      if (!parseBytes(attribute.value(), &bytes)) {
        return fail(node, std::string(name) + "=\"" + attribute.value() +
                              "\" is not a size (bytes, or a number with K, M, G or T)");
      }
      (std::strcmp(name, "minBytes") == 0 ? row->minBytes : row->maxBytes) = bytes;
    }
    if (row->maxBytes != 0 && row->minBytes > row->maxBytes) {
      return fail(node, "minBytes (" + std::to_string(row->minBytes) + ") is larger than maxBytes (" +
                            std::to_string(row->maxBytes) + ")");
    }
    pugi::xml_attribute algorithm = node.attribute("algorithm");
    row->algorithm = trim(algorithm.value());
    if (!algorithm || row->algorithm.empty()) {
      return fail(node, "row has no algorithm (a built-in name, an XML algorithm file or 'nccl')");
    }
    if (std::any_of(row->algorithm.begin(), row->algorithm.end(),
                    [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
      return fail(node, "algorithm '" + row->algorithm + "' contains white space");
    }
    row->source = file_ + ":" + std::to_string(lineOf(node));
    return true;
  }

  const std::string& text_;
  const std::string path_;
  const std::string file_;
  std::string error_;
};

}  // namespace

int TopologyDescription::gpuCount() const {
  for (const MachineMatch& match : matches) {
    if (!match.gpuCounts.empty()) return match.gpuCounts.front();
  }
  return 0;
}

bool TopologyDescription::hasRowsFor(int nranks, int nnodes) const {
  return std::any_of(table.rows.begin(), table.rows.end(), [&](const SelectionRow& row) {
    return (row.nranks == 0 || row.nranks == nranks) && (row.nnodes == 0 || row.nnodes == nnodes);
  });
}

bool parseTopologyText(const std::string& text, const std::string& path, TopologyDescription* out,
                       std::string* error) {
  return TopologyParser(text, path).parse(out, error);
}

bool parseTopologyFile(const std::string& path, TopologyDescription* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return parseTopologyText(contents.str(), path, out, error);
}

std::vector<TopologyDescription> loadTopologyDirectory(const std::string& dir,
                                                       std::vector<std::string>* warnings) {
  std::vector<TopologyDescription> descriptions;
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) {
    if (warnings) warnings->push_back(dir + ": cannot open directory: " + std::strerror(errno));
    return descriptions;
  }
  std::vector<std::string> names;
  while (dirent* entry = readdir(handle)) {
    const std::string name = entry->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0) names.push_back(name);
  }
  closedir(handle);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    TopologyDescription description;
    std::string error;
    if (!parseTopologyFile(dir + "/" + name, &description, &error)) {
      if (warnings) warnings->push_back(error + " (file skipped)");
      continue;
    }
    auto same = std::find_if(descriptions.begin(), descriptions.end(),
                             [&](const TopologyDescription& d) { return d.name == description.name; });
    if (same != descriptions.end()) {
      if (warnings) {
        warnings->push_back(description.path + ": topology name '" + description.name +
                            "' is already used by " + same->path + " (file skipped)");
      }
      continue;
    }
    descriptions.push_back(std::move(description));
  }
  return descriptions;
}

}  // namespace flashccl
