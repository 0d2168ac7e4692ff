// A calibrated table's <measurement> as the tests use it: one H200 box on NVSwitch, CUDA 13.0,
// NCCL 2.28.9, the current kernel generation. Tests change the field they are about.
#pragma once

#include <string>

#include "base/kernel_generation.h"
#include "topo/table_measurement.h"

namespace flashccl {
namespace testing {

inline TableMeasurement sampleMeasurement(const std::string& gpu = "NVIDIA H200", int gpus = 8) {
  TableMeasurement m;
  m.gpu = gpu;
  m.gpus = gpus;
  m.interconnect = "nvswitch";
  m.links = 18;
  m.driver = "13.0";
  m.cudaRuntime = "13.0";
  m.nccl = "2.28.9";
  m.flashccl = "0.9.0";
  m.kernels = kKernelGeneration;
  return m;
}

}  // namespace testing
}  // namespace flashccl
