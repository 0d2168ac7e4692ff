// Facts about the process and machine that go into a run's header: versions, devices, date, the
// environment variables that change what flashccl or NCCL do.
#pragma once

#include <string>
#include <vector>

#include "perf_options.h"
#include "run_report.h"

namespace flashccl {
namespace perf {

// NVLink multicast stays off on our machines (docs/design.md). Sets NCCL_NVLS_ENABLE=0 unless the
// caller set it, before NCCL is initialised, and remembers it: records say what perf changed.
void disableNvlsUnlessSet();
// Sets `name` for NCCL unless the caller set it, and remembers it for the records (as above).
void setForNcclUnlessSet(const char* name, const std::string& value);
// The variables this process set for NCCL (empty when the user's environment was used as it was).
const std::vector<EnvSetting>& environmentSetByPerf();

// `git describe --always --dirty` of the tree the tool was built from, or "unknown".
const char* buildCommit();

// Names of the variables the header reports.
const std::vector<const char*>& reportedEnvironmentNames();
std::vector<EnvSetting> reportedEnvironment();

// This process's view of CUDA device `device`, for rank `rank`. Throws PerfFailure on CUDA errors.
DeviceInfo describeDevice(int rank, int device);

// How records name the machine: "host: 2 x NVIDIA H200", counting GPUs rather than ranks
// ("host: 1 x NVIDIA H200 (2 ranks)" when ranks share a GPU; "host: 4 ranks on ..." when the
// devices of the other ranks are not known).
std::string machineDescription(const std::string& host, int nranks, const std::vector<DeviceInfo>& devices);

// Everything but the devices, which the caller gathers from all ranks.
RunInfo makeRunInfo(const PerfOptions& options, const RankLayout& layout,
                    const std::vector<DeviceInfo>& devices);

// "2.28.9" from ncclGetVersion's 22809 (and the pre-2.9 encoding 2708 -> "2.7.8").
std::string ncclVersionText(int code);

}  // namespace perf
}  // namespace flashccl
