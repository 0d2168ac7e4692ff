// Environment, part one: what software a job started here would run on. Driver, CUDA, the NCCL
// flashccl forwards to, and whether flashccl is preloaded at all.
#pragma once

#include <string>
#include <vector>

#include "check_result.h"
#include "nvml_health.h"

namespace flashccl {
namespace doctor {

struct SoftwareFacts {
  Reading<std::string> driverVersion;  // "580.65.06" (NVML, else /proc/driver/nvidia/version)
  int cudaDriverVersion = 0;   // what the driver supports, 13000 = 13.0; 0 = no driver
  std::string cudaDriverWhy;   // when 0: why
  int cudaRuntimeVersion = 0;  // the CUDA runtime flashccl and doctor are built with
  // The real NCCL flashccl resolves in this environment (its own discovery, src/base/real_nccl).
  std::string ncclPath;        // "" = none found
  int ncclVersion = 0;         // 22809
  std::string ncclError;       // why none was found
  std::string flashcclVersion;
  std::string ldPreload;       // LD_PRELOAD as set
  std::string flashcclDisable;  // FLASHCCL_DISABLE as set ("" = unset)
};

// "/proc/driver/nvidia/version" -> "580.65.06"; "" when the file does not say.
std::string driverVersionFromProc(const std::string& procText);
// 13000 -> "13.0", 12080 -> "12.8".
std::string cudaVersionText(int version);
// 22809 -> "2.28.9" (and the pre-2.9 encoding, 2708 -> "2.7.8").
std::string ncclVersionText(int version);

// driver, cuda, nccl, flashccl. `exists` tells whether an LD_PRELOAD entry names a file.
std::vector<CheckResult> judgeSoftware(const SoftwareFacts& facts,
                                       bool (*exists)(const std::string& path));

}  // namespace doctor
}  // namespace flashccl
