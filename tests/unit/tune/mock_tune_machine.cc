// tune_machine.h on the perf mock: a fixed two-GPU machine (flashccl_core, which detects the real
// one, cannot link beside the mock CUDA), no shipped programs (the tests name what they force),
// and no default install directory (the tests name one).
#include "../support/sample_measurement.h"
#include "tune_machine.h"

namespace flashccl {
namespace tune {

TableMeasurement thisMachine() {
  TableMeasurement m = testing::sampleMeasurement("Mock GPU", 2);
  m.nccl = "";  // the sweep's records say which NCCL perf ran
  return m;
}

std::string defaultInstallDirectory() { return ""; }

std::vector<FlashcclAlgorithm> shippedPrograms(int) { return {}; }

}  // namespace tune
}  // namespace flashccl
