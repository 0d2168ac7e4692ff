// Environment, part four: the IOMMU mode the GPUs and NICs run under. With DMA translation on,
// every device access is remapped: GPUDirect P2P and RDMA get slower or fail (NCCL's
// troubleshooting guide recommends iommu=pt, i.e. passthrough, on bare metal).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "check_result.h"

namespace flashccl {
namespace doctor {

struct IommuFacts {
  bool hardwareEnabled = false;  // sysfs class/iommu has entries
  std::map<std::string, std::string> groupTypes;  // device -> "identity", "DMA", "DMA-FQ", ...
  std::string kernelCommandLine;
};

IommuFacts readIommuFacts(const std::string& sysRoot, const std::string& procRoot,
                          const std::vector<std::string>& busIds);
CheckResult judgeIommu(const IommuFacts& facts);

}  // namespace doctor
}  // namespace flashccl
