// Runs the check families selected on this node, in order (environment, gpu, bandwidth, pairs,
// nics, collectives), and returns the node's report. Measurements that need a GPU are skipped
// with the reason when CUDA sees none, and report.gpuProblem says so.
#pragma once

#include <map>
#include <string>

#include "check_result.h"
#include "doctor_options.h"
#include "expectations.h"
#include "progress.h"

namespace flashccl {
namespace doctor {

// `expectations` holds what --expect gave; the matching topology file's floors are added under it.
NodeReport runNodeChecks(const DoctorOptions& options, const Expectations& expectations,
                         Progress& progress);

// Local time "2026-12-01 14:03:11" and the host name, as every report header shows them.
std::string localDate();
std::string hostName();
// This process's environment variables, by name.
std::map<std::string, std::string> environmentSnapshot();

}  // namespace doctor
}  // namespace flashccl
