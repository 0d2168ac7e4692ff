// Verdicts on the GPU pair matrix: copy-engine and SM-store bandwidth and one-way latency of
// every ordered pair, against the rate of the pair's path (NVLink links x per-link rate, or the
// PCIe link) and against the other pairs of the same path class, naming the slowest pair.
#pragma once

#include <string>
#include <vector>

#include "check_result.h"
#include "expectations.h"

namespace flashccl {
namespace doctor {

// What one pair's path should carry.
struct PairPath {
  std::string name;      // "NV18", "NVLink", "PCIe PIX", ... (also the class for median rules)
  bool nvlink = false;   // NVLink (direct or through NVSwitch) rather than PCIe
  double rawGBps = 0.0;  // per direction; 0 = unknown
  std::string rawSource; // "18 links x 26.56 GB/s (NVML)", "PCIe Gen5 x16"
};

struct PairMeasurement {
  int from = 0, to = 0;  // indices into the GPU labels
  PairPath path;
  bool peerAccess = false;
  double copyEngineGBps = std::nan("");  // cudaMemcpyPeer, from -> to
  double smStoreGBps = std::nan("");     // a kernel on `from` storing into `to`'s memory
  double latencyMicros = std::nan("");   // one way, from -> to
  std::string note;                      // why a part was not measured
};

// Three summary checks (copy-engine, sm-store, latency), each naming the slowest pair, plus one
// check per pair and metric that is not PASS. Also fills the three matrices.
std::vector<CheckResult> judgePairs(const std::vector<PairMeasurement>& pairs,
                                    const std::vector<std::string>& gpuLabels,
                                    const Expectations& expectations,
                                    std::vector<Matrix>* matrices);

}  // namespace doctor
}  // namespace flashccl
