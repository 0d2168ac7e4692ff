// Hand-built Topology values for the machine types the tests care about.
#pragma once

#include <string>

#include "topo/topology.h"

namespace flashccl {
namespace testing {

// `count` GPUs named `name`, every pair joined by `link`.
inline Topology uniformMachine(const std::string& name, int count, const GpuLink& link) {
  Topology topology;
  topology.gpuSource = "test";
  for (int i = 0; i < count; ++i) {
    GpuInfo gpu;
    gpu.name = name;
    gpu.cudaDevice = i;
    topology.gpus.push_back(gpu);
  }
  topology.resizeLinks();
  for (int i = 0; i < count; ++i) {
    for (int j = i + 1; j < count; ++j) topology.setLink(i, j, link);
  }
  return topology;
}

inline GpuLink nvswitchLink(int nvlinks) {
  GpuLink link;
  link.path = GpuPath::kNvswitch;
  link.nvlinks = nvlinks;
  link.peerAccess = true;
  return link;
}

inline GpuLink nvlinkLink(int nvlinks) {
  GpuLink link;
  link.path = GpuPath::kNvlink;
  link.nvlinks = nvlinks;
  link.peerAccess = true;
  return link;
}

inline GpuLink pcieLink(PcieDistance distance) {
  GpuLink link;
  link.path = GpuPath::kPcie;
  link.pcie = distance;
  return link;
}

inline Topology hgxH200x8() { return uniformMachine("NVIDIA H200", 8, nvswitchLink(18)); }
inline Topology h200PairNv18() { return uniformMachine("NVIDIA H200", 2, nvlinkLink(18)); }
inline Topology hgxA100x8() { return uniformMachine("NVIDIA A100-SXM4-80GB", 8, nvswitchLink(12)); }
inline Topology l40sPciex8() { return uniformMachine("NVIDIA L40S", 8, pcieLink(PcieDistance::kNode)); }

}  // namespace testing
}  // namespace flashccl
