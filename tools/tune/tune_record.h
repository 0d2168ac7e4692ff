// The JSON record of a `flashccl tune` (-J): the settings, every perf run (its environment, command,
// outcome and whole perf record), each size's measurements and decision, the bands and the table.
// docs/tuner.md, "flashccl tune", lists the fields.
#pragma once

#include <string>

#include "report_json.h"
#include "tune_summary.h"

namespace flashccl {
namespace tune {

constexpr int kTuneRecordSchema = 1;

perf::Json tuneRecordToJson(const TuneSummary& summary);

}  // namespace tune
}  // namespace flashccl
