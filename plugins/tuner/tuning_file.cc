#include "tuning_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include <pugixml.hpp>

#include "topo/topology_file.h"

namespace flashccl {

namespace {

const char* const kScopeAttributes[] = {"coll", "ranks", "nodes", "pipeOps", "regBuff"};
const char* const kRowOnlyAttributes[] = {"minBytes", "maxBytes", "algorithm", "protocol",
                                          "channels"};

bool isOneOf(const char* name, const char* const* names, size_t count) {
  return std::any_of(names, names + count, [&](const char* n) { return std::strcmp(n, name) == 0; });
}

// Up to nine digits: a count, never a size (sizes go through parseByteSize).
bool parseCount(const std::string& text, int* value) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return false;
  }
  *value = std::stoi(text);
  return true;
}

// What <tuning> and <group> pass down to the rows inside.
struct Scope {
  int coll = kAnyCollective;
  int nranks = 0;
  int nnodes = 0;
  int pipeOps = 0;
  RegBuffFilter regBuff = RegBuffFilter::kAny;
};

class TuningParser {
 public:
  TuningParser(const std::string& text, const std::string& path) : text_(text), path_(path) {
    const size_t slash = path.rfind('/');
    file_ = slash == std::string::npos ? path : path.substr(slash + 1);
  }

  bool parse(TuningTable* out, bool* hasSection, std::string* error) {
    const bool ok = parseDocument(out, hasSection);
    if (!ok) *error = error_;
    return ok;
  }

 private:
  int lineOf(ptrdiff_t offset) const {
    const size_t end = std::min(size_t(std::max<ptrdiff_t>(offset, 0)), text_.size());
    return 1 + int(std::count(text_.begin(), text_.begin() + end, '\n'));
  }

  bool fail(const pugi::xml_node& node, const std::string& message) {
    error_ = path_ + ":" + std::to_string(lineOf(node.offset_debug())) + ": " + message;
    return false;
  }

  bool parseDocument(TuningTable* out, bool* hasSection) {
    pugi::xml_document doc;
    const pugi::xml_parse_result result = doc.load_buffer(text_.data(), text_.size());
    if (!result) {
      error_ = path_ + ":" + std::to_string(lineOf(result.offset)) + ": XML error: " +
               result.description();
      return false;
    }
    const pugi::xml_node root = doc.document_element();
    for (pugi::xml_node node = root.next_sibling(); node; node = node.next_sibling()) {
      if (node.type() == pugi::node_element) return fail(node, "more than one top-level element");
    }
    pugi::xml_node section;
    if (std::strcmp(root.name(), "tuning") == 0) {
      section = root;
    } else if (std::strcmp(root.name(), "topology") == 0) {
      // One file describes the machine for flashccl and for NCCL: a file flashccl would reject
      // is not half-used here.
      TopologyDescription description;
      if (!parseTopologyText(text_, path_, &description, &error_)) return false;
      section = root.child("tuning");
    } else {
      return fail(root, std::string("top-level element is <") + root.name() +
                            ">, expected <tuning> or <topology>");
    }
    *out = TuningTable();
    out->origin = path_;
    *hasSection = bool(section);
    if (!section) return true;
    if (!parseContainer(section, Scope(), &out->rows)) return false;
    size_t later = 0;
    std::string problem;
    if (checkRowConflicts(out->rows, &later, &problem)) return true;
    error_ = path_ + ":" + std::to_string(out->rows[later].line) + ": " + problem;
    return false;
  }

  bool checkAttributes(const pugi::xml_node& node, bool isRow) {
    for (const pugi::xml_attribute& attribute : node.attributes()) {
      if (isOneOf(attribute.name(), kScopeAttributes, std::size(kScopeAttributes))) continue;
      if (isRow && isOneOf(attribute.name(), kRowOnlyAttributes, std::size(kRowOnlyAttributes))) continue;
      return fail(node, std::string("unknown attribute '") + attribute.name() + "' on <" +
                            node.name() + ">" +
                            (isRow ? " (expected coll, ranks, nodes, pipeOps, regBuff, minBytes, "
                                     "maxBytes, algorithm, protocol, channels)"
                                   : " (expected coll, ranks, nodes, pipeOps, regBuff)"));
    }
    return true;
  }

  bool checkNoText(const pugi::xml_node& node) {
    for (const pugi::xml_node& child : node.children()) {
      const bool text = child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata;
      const std::string value = child.value();
      if (text && std::any_of(value.begin(), value.end(), [](char c) { return !std::isspace(static_cast<unsigned char>(c)); })) {
        return fail(child, std::string("unexpected text in <") + node.name() + ">");
      }
    }
    return true;
  }

  // ranks="8", nodes="any", pipeOps="2": a positive count, or any (0).
  bool parseAnyOrCount(const pugi::xml_node& node, const char* name, int* value) {
    const pugi::xml_attribute attribute = node.attribute(name);
    if (!attribute) return true;
    const std::string text = attribute.value();
    if (text == "any") {
      *value = 0;
      return true;
    }
    if (!parseCount(text, value) || *value == 0) {
      return fail(node, std::string(name) + "=\"" + text + "\" is not a positive number or 'any'");
    }
    return true;
  }

  bool parseScope(const pugi::xml_node& node, Scope* scope) {
    if (const pugi::xml_attribute coll = node.attribute("coll")) {
      if (!parseCollectiveName(coll.value(), &scope->coll)) {
        return fail(node, "unknown collective '" + std::string(coll.value()) +
                              "' (expected broadcast, reduce, allgather, reducescatter or allreduce)");
      }
    }
    if (!parseAnyOrCount(node, "ranks", &scope->nranks) ||
        !parseAnyOrCount(node, "nodes", &scope->nnodes) ||
        !parseAnyOrCount(node, "pipeOps", &scope->pipeOps)) {
      return false;
    }
    if (const pugi::xml_attribute regBuff = node.attribute("regBuff")) {
      const std::string text = regBuff.value();
      if (text == "any") scope->regBuff = RegBuffFilter::kAny;
      else if (text == "yes") scope->regBuff = RegBuffFilter::kRegistered;
      else if (text == "no") scope->regBuff = RegBuffFilter::kUnregistered;
      else return fail(node, "regBuff=\"" + text + "\" is not yes, no or any");
    }
    return true;
  }

  // <tuning> and <group>: rows and nested groups, in order.
  bool parseContainer(const pugi::xml_node& node, Scope scope, std::vector<TuningRow>* rows) {
    if (!checkAttributes(node, false) || !checkNoText(node) || !parseScope(node, &scope)) return false;
    for (const pugi::xml_node& child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::strcmp(child.name(), "row") == 0) {
        TuningRow row;
        if (!parseRow(child, scope, &row)) return false;
        rows->push_back(row);
      } else if (std::strcmp(child.name(), "group") == 0) {
        if (!parseContainer(child, scope, rows)) return false;
      } else {
        return fail(child, std::string("unknown element <") + child.name() + "> in <" +
                               node.name() + "> (expected <row> or <group>)");
      }
    }
    return true;
  }

  bool parseSize(const pugi::xml_node& node, const char* name, size_t* bytes) {
    const pugi::xml_attribute attribute = node.attribute(name);
    if (!attribute || parseByteSize(attribute.value(), bytes)) return true;
    return fail(node, std::string(name) + "=\"" + attribute.value() +
                          "\" is not a size (bytes, or a number with K, M, G or T)");
  }

  bool parseRow(const pugi::xml_node& node, Scope scope, TuningRow* row) {
    if (!checkAttributes(node, true) || !checkNoText(node) || !parseScope(node, &scope)) return false;
    if (const pugi::xml_node child = node.find_child([](pugi::xml_node n) { return n.type() == pugi::node_element; })) {
      return fail(child, "<row> takes no child elements");
    }
    row->line = lineOf(node.offset_debug());
    row->source = file_ + ":" + std::to_string(row->line);
    if (scope.coll == kAnyCollective) {
      return fail(node, "row has no coll, neither on the row nor on an enclosing element");
    }
    row->coll = scope.coll;
    row->nranks = scope.nranks;
    row->nnodes = scope.nnodes;
    row->pipeOps = scope.pipeOps;
    row->regBuff = scope.regBuff;
    if (!parseSize(node, "minBytes", &row->minBytes) || !parseSize(node, "maxBytes", &row->maxBytes)) {
      return false;
    }
    if (row->maxBytes != 0 && row->minBytes > row->maxBytes) {
      return fail(node, "minBytes (" + std::to_string(row->minBytes) + ") is larger than maxBytes (" +
                            std::to_string(row->maxBytes) + ")");
    }
    return parseChoice(node, row);
  }

  // algorithm + protocol, or algorithm="nccl" (NCCL's own) without a protocol; channels either way.
  bool parseChoice(const pugi::xml_node& node, TuningRow* row) {
    const pugi::xml_attribute algorithm = node.attribute("algorithm");
    const pugi::xml_attribute protocol = node.attribute("protocol");
    if (!algorithm) {
      return fail(node, "row has no algorithm (tree, ring, collnet_direct, collnet_chain, nvls, "
                        "nvls_tree, pat, or nccl for NCCL's own)");
    }
    if (std::string(algorithm.value()) == "nccl") {
      if (protocol) return fail(node, "algorithm=\"nccl\" leaves the protocol to NCCL too: drop protocol=");
    } else {
      if (!parseAlgorithmName(algorithm.value(), &row->algorithm)) {
        return fail(node, "unknown algorithm '" + std::string(algorithm.value()) +
                              "' (expected tree, ring, collnet_direct, collnet_chain, nvls, "
                              "nvls_tree, pat or nccl)");
      }
      if (!protocol) return fail(node, "row names an algorithm but no protocol (ll, ll128, simple)");
      if (!parseProtocolName(protocol.value(), &row->protocol)) {
        return fail(node, "unknown protocol '" + std::string(protocol.value()) +
                              "' (expected ll, ll128 or simple)");
      }
    }
    const pugi::xml_attribute channels = node.attribute("channels");
    if (channels && !parseCount(channels.value(), &row->channels)) {
      return fail(node, "channels=\"" + std::string(channels.value()) +
                            "\" is not a channel count (0 or absent: NCCL's own)");
    }
    return true;
  }

  const std::string& text_;
  const std::string path_;
  std::string file_;
  std::string error_;
};

}  // namespace

bool parseTuningText(const std::string& text, const std::string& path, TuningTable* out,
                     bool* hasSection, std::string* error) {
  return TuningParser(text, path).parse(out, hasSection, error);
}

bool parseTuningFile(const std::string& path, TuningTable* out, bool* hasSection,
                     std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseTuningText(text, path, out, hasSection, error);
}

}  // namespace flashccl
