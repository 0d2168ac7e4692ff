#include "topo/machine_match.h"

#include <algorithm>
#include <cctype>

namespace flashccl {

namespace {

bool globAt(const char* pattern, const char* text) {
  // Iterative matcher with one backtrack point per '*': linear enough for GPU names.
  const char* star = nullptr;
  const char* resume = nullptr;
  while (*text) {
    if (*pattern == '*') {
      star = pattern++;
      resume = text;
    } else if (*pattern == '?' ||
               (*pattern && std::tolower(static_cast<unsigned char>(*pattern)) ==
                                std::tolower(static_cast<unsigned char>(*text)))) {
      ++pattern;
      ++text;
    } else if (star) {
      pattern = star + 1;
      text = ++resume;
    } else {
      return false;
    }
  }
  while (*pattern == '*') ++pattern;
  return *pattern == '\0';
}

std::string joinNames(const std::vector<Interconnect>& kinds) {
  std::string text;
  for (Interconnect kind : kinds) text += std::string(text.empty() ? "" : "|") + interconnectName(kind);
  return text;
}

}  // namespace

bool globMatches(const std::string& pattern, const std::string& text) {
  return globAt(pattern.c_str(), text.c_str());
}

bool machineMatches(const MachineMatch& match, const Topology& topology, std::string* whyNot) {
  const int count = int(topology.gpus.size());
  if (count == 0) {
    if (whyNot) *whyNot = "no GPU detected";
    return false;
  }
  if (!match.gpuCounts.empty() &&
      std::find(match.gpuCounts.begin(), match.gpuCounts.end(), count) == match.gpuCounts.end()) {
    if (whyNot) *whyNot = "GPU count " + std::to_string(count) + " not listed";
    return false;
  }
  if (!match.gpuPatterns.empty()) {
    for (const GpuInfo& gpu : topology.gpus) {
      const bool named = std::any_of(match.gpuPatterns.begin(), match.gpuPatterns.end(),
                                     [&](const std::string& p) { return globMatches(p, gpu.name); });
      if (!named) {
        if (whyNot) *whyNot = "GPU '" + gpu.name + "' does not match the gpu patterns";
        return false;
      }
    }
  }
  if (!match.interconnects.empty()) {
    const Interconnect kind = topology.interconnect();
    if (std::find(match.interconnects.begin(), match.interconnects.end(), kind) ==
        match.interconnects.end()) {
      if (whyNot) {
        *whyNot = std::string("interconnect ") + interconnectName(kind) + " is not " +
                  joinNames(match.interconnects);
      }
      return false;
    }
  }
  return true;
}

bool descriptionMatches(const TopologyDescription& description, const Topology& topology,
                        std::string* whyNot) {
  if (description.matches.empty()) {
    if (whyNot) *whyNot = "has no <match> (used only when named)";
    return false;
  }
  std::string reasons;
  for (const MachineMatch& match : description.matches) {
    std::string why;
    if (machineMatches(match, topology, &why)) return true;
    reasons += std::string(reasons.empty() ? "" : "; ") + why;
  }
  if (whyNot) *whyNot = reasons;
  return false;
}

const TopologyDescription* findMatchingDescription(
    const std::vector<TopologyDescription>& descriptions, const Topology& topology,
    std::vector<std::string>* others) {
  const TopologyDescription* first = nullptr;
  for (const TopologyDescription& description : descriptions) {
    if (!descriptionMatches(description, topology, nullptr)) continue;
    if (first == nullptr) first = &description;
    else if (others) others->push_back(description.name);
  }
  return first;
}

}  // namespace flashccl
