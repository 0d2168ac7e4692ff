// The markdown report of a calibration (docs/tuner.md, "flashccl tune"): per collective and rank
// count, each size's NCCL time, flashccl's best algorithm and its time, the speedup, the spread
// and what the selection row says, so a person sees why each row was written.
#pragma once

#include <string>

#include "tune_summary.h"

namespace flashccl {
namespace tune {

std::string selectionMarkdown(const TuneSummary& summary);

}  // namespace tune
}  // namespace flashccl
