// Verdicts on the collectives `flashccl perf` measured: NCCL's busbw against the floor for this
// machine (topology file or --expect), flashccl's against NCCL's, and flashccl's results
// against NCCL's (#wrong).
#pragma once

#include <string>
#include <vector>

#include "check_result.h"
#include "expectations.h"
#include "perf_interface.h"

namespace flashccl {
namespace doctor {

struct CollectiveOutcome {
  enum class Status { kMeasured, kUnsupported, kFailed };
  std::string collective;  // normalized
  Status status = Status::kMeasured;
  std::string message;     // kUnsupported / kFailed: what perf said
  PerfRun run;
};

// One check per (collective, size) measured; one SKIP or FAIL per collective perf could not run.
std::vector<CheckResult> judgeCollectives(const std::vector<CollectiveOutcome>& outcomes,
                                          const Expectations& expectations);

// "256M", "64K", "1G", "1000" (exact powers of 1024 get a suffix).
std::string sizeText(size_t bytes);

}  // namespace doctor
}  // namespace flashccl
