#include "tuning_xml.h"

#include <cstring>
#include <sstream>

#include <pugixml.hpp>

#include "tuning_file.h"
#include "tuning_table.h"

namespace flashccl {
namespace tune {

namespace {

std::string spaces(int n) { return std::string(size_t(n > 0 ? n : 0), ' '); }

std::string rowText(const TableRow& row) {
  std::string text = "<row minBytes=\"" + sizeText(row.minBytes) + "\" maxBytes=\"" + sizeText(row.maxBytes) +
                     "\" algorithm=\"" + row.choice.algorithm + "\" protocol=\"" + row.choice.protocol + "\"";
  if (row.choice.channels > 0) text += " channels=\"" + std::to_string(row.choice.channels) + "\"";
  return text + "/>";
}

// One <group> per collective, in the order the rows come; `scope` goes on each group's start tag.
std::string groupsText(const std::vector<TableRow>& rows, const std::string& scope, int indent) {
  std::string text;
  for (size_t i = 0; i < rows.size();) {
    const perf::Collective coll = rows[i].collective;
    text += spaces(indent) + "<group coll=\"" + perf::collectiveName(coll) + "\"" + scope + ">\n";
    for (; i < rows.size() && rows[i].collective == coll; ++i) text += spaces(indent + 2) + rowText(rows[i]) + "\n";
    text += spaces(indent) + "</group>\n";
  }
  return text;
}

std::string countsScope(const TableFacts& facts) {
  return " ranks=\"" + std::to_string(facts.ranks) + "\" nodes=\"" + std::to_string(facts.nodes) + "\"";
}

std::string provenanceComment(const TableFacts& facts, int indent) {
  std::string text = spaces(indent) + "<!--\n";
  for (const std::string& line : facts.provenance) text += spaces(indent + 2) + commentSafe(line) + "\n";
  return text + spaces(indent) + "-->\n";
}

// The value of `name` on `node` or the nearest enclosing element that has it ("" if none).
std::string inherited(pugi::xml_node node, const char* name) {
  for (; node && node.type() == pugi::node_element; node = node.parent())
    if (pugi::xml_attribute a = node.attribute(name)) return a.value();
  return "";
}

// Removes `node` and the whitespace before it (its line), so no blank line is left behind.
void removeWithItsLine(pugi::xml_node node) {
  pugi::xml_node before = node.previous_sibling();
  pugi::xml_node parent = node.parent();
  if (before && before.type() == pugi::node_pcdata &&
      std::string(before.value()).find_first_not_of(" \t\r\n") == std::string::npos)
    parent.remove_child(before);
  parent.remove_child(node);
}

bool hasElementChild(pugi::xml_node node) {
  for (pugi::xml_node child : node.children())
    if (child.type() == pugi::node_element) return true;
  return false;
}

// Rows inside `container` (recursively) that this table replaces: one of the measured
// collectives, exactly these ranks and nodes. Groups they leave empty go too.
void removeReplacedRows(pugi::xml_node container, const std::vector<perf::Collective>& measured,
                        const TableFacts& facts) {
  std::vector<pugi::xml_node> children;
  for (pugi::xml_node child : container.children())
    if (child.type() == pugi::node_element) children.push_back(child);
  for (pugi::xml_node child : children) {
    if (std::strcmp(child.name(), "group") == 0) {
      removeReplacedRows(child, measured, facts);
      if (!hasElementChild(child)) removeWithItsLine(child);
      continue;
    }
    if (std::strcmp(child.name(), "row") != 0) continue;
    bool ours = false;
    perf::Collective coll;
    if (perf::parseCollective(inherited(child, "coll"), &coll))
      for (perf::Collective m : measured) ours = ours || m == coll;
    ours = ours && inherited(child, "ranks") == std::to_string(facts.ranks) &&
           inherited(child, "nodes") == std::to_string(facts.nodes);
    if (ours) removeWithItsLine(child);
  }
}

// Columns before `offset` on its line: the indentation of the element that starts there.
int indentationAt(const std::string& text, ptrdiff_t offset) {
  const size_t start = text.rfind('\n', size_t(offset)) == std::string::npos ? 0 : text.rfind('\n', size_t(offset)) + 1;
  return int(size_t(offset) - start);
}

}  // namespace

std::string sizeText(size_t bytes) {
  const char* const suffixes[] = {"T", "G", "M", "K"};
  for (int i = 0; i < 4; ++i) {
    const size_t unit = size_t(1) << (10 * (4 - i));
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + suffixes[i];
  }
  return std::to_string(bytes);
}

std::string commentSafe(const std::string& text) {
  std::string safe = text;
  for (size_t at = safe.find("--"); at != std::string::npos; at = safe.find("--", at))
    safe.replace(at, 2, "- -");
  if (!safe.empty() && safe.back() == '-') safe += ' ';
  return safe;
}

std::string tuningSection(const std::vector<TableRow>& rows, const TableFacts& facts, int indent) {
  const std::string start = spaces(indent) + "<tuning" + countsScope(facts);
  if (rows.empty()) {
    return start + ">\n" + spaces(indent + 2) +
           "<!-- no row: NCCL's own choice was the fastest within the measured spread at every size -->\n" +
           spaces(indent) + "</tuning>\n";
  }
  return start + ">\n" + groupsText(rows, "", indent + 2) + spaces(indent) + "</tuning>\n";
}

std::string tuningFile(const std::vector<TableRow>& rows, const TableFacts& facts) {
  return "<?xml version=\"1.0\"?>\n" + provenanceComment(facts, 0) + tuningSection(rows, facts, 0);
}

bool mergeIntoFile(const std::string& text, const std::string& path, const std::vector<TableRow>& rows,
                   const std::vector<perf::Collective>& measured, const TableFacts& facts, std::string* merged,
                   std::string* error) {
  TuningTable existing;
  bool hasSection = false;
  if (!parseTuningText(text, path, &existing, &hasSection, error)) return false;

  std::string result;
  if (!hasSection) {
    // A topology file without a <tuning> section: the section goes last, text spliced in so the
    // file's own layout stays as it is.
    const size_t end = text.rfind("</topology>");
    if (end == std::string::npos) {
      *error = path + ": no </topology> to add a <tuning> section before";
      return false;
    }
    const size_t lineStart = text.rfind('\n', end) == std::string::npos ? 0 : text.rfind('\n', end) + 1;
    const bool ownLine = text.find_first_not_of(" \t", lineStart) == end;
    result = text.substr(0, ownLine ? lineStart : end) + (ownLine ? "" : "\n") + provenanceComment(facts, 2) +
             tuningSection(rows, facts, 2) + text.substr(ownLine ? lineStart : end);
  } else {
    pugi::xml_document doc;
    const unsigned flags = pugi::parse_default | pugi::parse_comments | pugi::parse_declaration |
                           pugi::parse_ws_pcdata | pugi::parse_doctype | pugi::parse_pi;
    if (!doc.load_buffer(text.data(), text.size(), flags)) {
      *error = path + ": cannot be read back as XML";
      return false;
    }
    pugi::xml_node root = doc.document_element();
    pugi::xml_node tuning = std::strcmp(root.name(), "tuning") == 0 ? root : root.child("tuning");
    removeReplacedRows(tuning, measured, facts);
    // The new rows go first: specific to this communicator, they must not be shadowed by rows for
    // any rank count that the file may already have.
    std::string scope = countsScope(facts);
    for (const char* attribute : {"pipeOps", "regBuff"})
      if (tuning.attribute(attribute)) scope += std::string(" ") + attribute + "=\"any\"";
    const int indent = indentationAt(text, tuning.offset_debug()) + 2;
    // Each new line starts with its newline and indentation, and the last ends without one: the
    // whitespace that preceded the first old child then separates ours from it.
    std::string fragmentText = "<f>\n" + provenanceComment(facts, indent) + groupsText(rows, scope, indent);
    fragmentText.pop_back();  // the last group's newline
    fragmentText += "</f>";
    pugi::xml_document fragment;
    if (!fragment.load_string(fragmentText.c_str(), flags)) {
      *error = "internal: the new rows are not XML";
      return false;
    }
    const pugi::xml_node first = tuning.first_child();
    for (pugi::xml_node node : fragment.child("f").children()) {
      if (first) tuning.insert_copy_before(node, first);
      else tuning.append_copy(node);
    }
    if (!first) tuning.append_child(pugi::node_pcdata).set_value(("\n" + spaces(indent - 2)).c_str());
    std::ostringstream out;
    doc.save(out, "", pugi::format_raw | pugi::format_no_declaration);
    result = out.str();
    if (!result.empty() && result.back() != '\n') result += '\n';
  }
  TuningTable check;
  if (!parseTuningText(result, path, &check, &hasSection, error)) {
    *error = "the table merged into " + path + " would not be accepted by the tuner plugin: " + *error;
    return false;
  }
  *merged = result;
  return true;
}

}  // namespace tune
}  // namespace flashccl
