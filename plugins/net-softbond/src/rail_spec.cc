#include "rail_spec.h"

#include <net/if.h>

#include <sstream>

namespace flashccl::softbond {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

}  // namespace

bool parseRailSpec(const std::string& text, std::vector<std::vector<std::string>>* bonds, std::string* error) {
  std::vector<std::vector<std::string>> parsed;
  for (const std::string& bondText : split(text, ';')) {
    std::vector<std::string> rails;
    for (const std::string& railText : split(bondText, ',')) {
      std::string name = trim(railText);
      if (name.empty()) {
        *error = "empty interface name in '" + bondText + "'";
        return false;
      }
      if (name.size() >= IFNAMSIZ) {
        *error = "interface name too long: '" + name + "'";
        return false;
      }
      rails.push_back(name);
    }
    if (rails.empty()) {
      *error = "empty bond";
      return false;
    }
    if (rails.size() > static_cast<size_t>(kMaxRailsPerBond)) {
      *error = "more than 4 rails in '" + bondText + "'";
      return false;
    }
    parsed.push_back(rails);
  }
  if (parsed.empty()) {
    *error = "no bond named";
    return false;
  }
  if (parsed.size() > static_cast<size_t>(kMaxBonds)) {
    *error = "more than 16 bonds";
    return false;
  }
  *bonds = std::move(parsed);
  return true;
}

InterfaceFilter::InterfaceFilter(const std::string& spec) {
  std::string text = spec;
  if (!text.empty() && text[0] == '^') exclude_ = true, text.erase(0, 1);
  if (!text.empty() && text[0] == '=') exact_ = true, text.erase(0, 1);
  for (const std::string& name : split(text, ','))
    if (!trim(name).empty()) names_.push_back(trim(name));
}

bool InterfaceFilter::matches(const std::string& name) const {
  if (names_.empty()) return true;
  bool listed = false;
  for (const std::string& entry : names_)
    if (exact_ ? name == entry : name.compare(0, entry.size(), entry) == 0) listed = true;
  return exclude_ ? !listed : listed;
}

}  // namespace flashccl::softbond
