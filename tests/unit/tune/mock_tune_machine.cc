// tune_machine.h on the perf mock: a fixed two-GPU machine (flashccl_core, which detects the real
// one, cannot link beside the mock CUDA), no shipped programs (the tests name what they force),
// and no default install directory (the tests name one).
#include "tune_machine.h"

namespace flashccl {
namespace tune {

TableMeasurement thisMachine() {
  TableMeasurement m;
  m.gpu = "Mock GPU";
  m.gpus = 2;
  m.interconnect = "nvswitch";
  m.links = 18;
  m.driver = "13.0";
  m.cudaRuntime = "13.0";
  m.flashccl = "mock";
  m.kernels = 1;
  return m;
}

std::string defaultInstallDirectory() { return ""; }

std::vector<FlashcclAlgorithm> shippedPrograms(int) { return {}; }

}  // namespace tune
}  // namespace flashccl
