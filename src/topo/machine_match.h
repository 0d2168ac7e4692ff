// Which topologies/*.xml description fits a detected machine.
#pragma once

#include <string>
#include <vector>

#include "topo/topology.h"
#include "topo/topology_file.h"

namespace flashccl {

// Shell-style glob, case-insensitive, on the whole text: '*' any run, '?' one character.
bool globMatches(const std::string& pattern, const std::string& text);

// True when `topology` satisfies every attribute of `match`: all its GPUs' names match one of
// the patterns, its GPU count is one of the counts, its interconnect one of the interconnects.
// Otherwise false with *whyNot saying which attribute failed.
bool machineMatches(const MachineMatch& match, const Topology& topology, std::string* whyNot);

// True when any <match> of `description` holds. A description without <match> never matches.
bool descriptionMatches(const TopologyDescription& description, const Topology& topology,
                        std::string* whyNot);

// The first description (in the given order: file-name order for a directory) that matches, or
// nullptr. *others lists the names of further matching descriptions (shipped files are written
// so that there are none; a user's extra file may overlap).
const TopologyDescription* findMatchingDescription(
    const std::vector<TopologyDescription>& descriptions, const Topology& topology,
    std::vector<std::string>* others);

}  // namespace flashccl
