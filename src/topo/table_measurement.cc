#include "topo/table_measurement.h"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "base/kernel_generation.h"

namespace flashccl {

namespace {

// The weakest pair's NVLink count: what a collective over every GPU is limited by.
int weakestPairLinks(const Topology& machine) {
  int links = -1;
  for (size_t i = 0; i < machine.links.size(); ++i)
    for (size_t j = i + 1; j < machine.links[i].size(); ++j)
      links = links < 0 ? machine.links[i][j].nvlinks : std::min(links, machine.links[i][j].nvlinks);
  return links < 0 ? 0 : links;
}

}  // namespace

std::string cudaVersionText(int version) {
  if (version <= 0) return "unknown";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::vector<MeasurementField> comparedFields(const TableMeasurement& recorded, const TableMeasurement& current) {
  return {
      {"gpu", recorded.gpu, current.gpu},
      {"gpus", std::to_string(recorded.gpus), std::to_string(current.gpus)},
      {"interconnect", recorded.interconnect, current.interconnect},
      {"links", std::to_string(recorded.links), std::to_string(current.links)},
      {"driver", recorded.driver, current.driver},
      {"cuda", recorded.cudaRuntime, current.cudaRuntime},
      {"nccl", recorded.nccl, current.nccl},
      {"flashccl", recorded.flashccl, current.flashccl},
      {"kernels", std::to_string(recorded.kernels), std::to_string(current.kernels)},
  };
}

std::string measurementMismatch(const TableMeasurement& recorded, const TableMeasurement& current) {
  for (const MeasurementField& field : comparedFields(recorded, current)) {
    if (field.recorded == field.current) continue;
    return std::string(field.name) + ": the table says " + (field.recorded.empty() ? "nothing" : field.recorded) +
           ", this process has " + (field.current.empty() ? "nothing" : field.current);
  }
  return "";
}

TableMeasurement measurementOf(const Topology& machine, const std::string& ncclVersion) {
  TableMeasurement m;
  m.gpu = machine.gpus.empty() ? "" : machine.gpus.front().name;
  m.gpus = int(machine.gpus.size());
  m.interconnect = interconnectName(machine.interconnect());
  m.links = weakestPairLinks(machine);
  int version = 0;
  m.driver = cudaVersionText(cudaDriverGetVersion(&version) == cudaSuccess ? version : 0);
  version = 0;
  m.cudaRuntime = cudaVersionText(cudaRuntimeGetVersion(&version) == cudaSuccess ? version : 0);
  m.nccl = ncclVersion;
  m.flashccl = FLASHCCL_VERSION_STRING;
  m.kernels = kKernelGeneration;
  return m;
}

}  // namespace flashccl
