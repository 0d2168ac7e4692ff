// What a selection table says it was measured on (the <measurement> element of a topology file,
// docs/topologies.md, "Calibrated tables"), and the same facts about the machine a process runs
// on, so a table whose facts no longer hold is refused instead of arming kernels that were never
// timed there.
#pragma once

#include <string>
#include <vector>

#include "topo/topology.h"

namespace flashccl {

struct TableMeasurement {
  // Compared at load (measurementMismatch): a difference in any of them refuses the table.
  std::string gpu;          // the GPU model, as NVML/CUDA name it ("NVIDIA H200")
  int gpus = 0;             // GPUs of the machine
  std::string interconnect;  // interconnectName() of the machine
  int links = 0;            // NVLinks per pair (the weakest pair's); 0 = none or unknown
  std::string driver;       // the CUDA driver's version (cudaDriverGetVersion: "13.0")
  std::string cudaRuntime;  // the CUDA runtime's version (cudaRuntimeGetVersion: "13.0")
  std::string nccl;         // the real NCCL's version ("2.28.9")
  std::string flashccl;     // flashccl's version (VERSION)
  int kernels = 0;          // kKernelGeneration the rows were measured with (0: not recorded)
  // Recorded for people, not compared: a rebuild at another commit with the same kernels
  // (kernels) keeps its table; the date and the command say when and how to measure again.
  std::string commit;
  std::string date;
  std::string command;
};

// One compared field of a measurement: its name in the file and its value as text.
struct MeasurementField {
  const char* name;
  std::string recorded;
  std::string current;
};

// The compared fields of `recorded` against `current`, in file order.
std::vector<MeasurementField> comparedFields(const TableMeasurement& recorded, const TableMeasurement& current);

// "" when every compared field agrees, else the first that does not, as one line:
// "nccl: the table says 2.28.9, this process has 2.29.1".
std::string measurementMismatch(const TableMeasurement& recorded, const TableMeasurement& current);

// The facts of `machine` and of this process: the GPU model (the first GPU's name), counts and
// links from `machine`; driver and runtime from the CUDA runtime; `ncclVersion` as given (the
// caller knows which NCCL it forwards to); flashccl's version and kernel generation.
TableMeasurement measurementOf(const Topology& machine, const std::string& ncclVersion);

// "13.0" for CUDA's 13000.
std::string cudaVersionText(int version);

}  // namespace flashccl
