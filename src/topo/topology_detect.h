// Detecting the local topology: GPUs (CUDA runtime, NVML), the path between each pair (NVML,
// else CUDA peer attributes), NUMA nodes and NICs (hwloc, else sysfs). Every source is optional:
// with no driver, no NVML and no hwloc the result is an empty Topology whose notes say why, never
// a crash or a hang.
#pragma once

#include <string>

#include "topo/topology.h"

namespace flashccl {

struct DetectOptions {
  bool useCuda = true;                            // ask the CUDA runtime (false in some tests)
  std::string nvmlLibrary = "libnvidia-ml.so.1";  // "" = do not use NVML
  std::string hwlocLibrary = "libhwloc.so.15";    // hwloc 2.x soname; "" = do not use hwloc
  std::string sysRoot = "/sys";                   // sysfs, for NUMA placement and the fallback
};

// Runs detection now. Costs milliseconds to a second (NVML and hwloc initialisation): call it
// through localTopology() outside tests.
Topology detectTopology(const DetectOptions& options = DetectOptions());

// This process's topology, detected once with the default options on first use. Thread-safe.
const Topology& localTopology();

}  // namespace flashccl
