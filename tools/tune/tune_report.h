// The report `flashccl tune` prints: per collective, each size's NCCL default, the tuned choice
// (the winner of the sweep, or NCCL's own), its time in the sweep and with the written table, and
// flashccl's best algorithm, side by side with their speedups over the default.
#pragma once

#include <string>

#include "tune_summary.h"

namespace flashccl {
namespace tune {

std::string formatReport(const TuneSummary& summary);

}  // namespace tune
}  // namespace flashccl
