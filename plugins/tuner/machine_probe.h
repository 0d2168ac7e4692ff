// The machine as the tuner plugin sees it at init: every GPU's name (NVML lists the whole
// machine, whatever CUDA_VISIBLE_DEVICES says) and each pair's path, enough to match the
// <match> elements of topologies/*.xml.
//
// NVML only, loaded with dlopen: a plugin must not bring the CUDA runtime into NCCL's process.
// The pair rule is lighter than the library's detection (src/topo/topology_detect.cc) and agrees
// with it on the machines the shipped files describe: NVML's NVLink P2P status says whether a
// pair talks over NVLink; a pair whose GPUs both have links ending at NVSwitch ports is on a
// switch, else on direct links.
#pragma once

#include <string>

#include "topo/topology.h"

namespace flashccl {

// No GPUs and *why set when NVML cannot be loaded or initialised.
Topology probeMachineWithNvml(const std::string& nvmlLibrary, std::string* why);

}  // namespace flashccl
