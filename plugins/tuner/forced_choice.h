// FLASHCCL_TUNER_FORCE: one choice for every call, or one per collective, instead of a table.
// It is how `flashccl tune` (and a person with nccl-tests) measures each algorithm, protocol and
// channel count in turn:
//
//   FLASHCCL_TUNER_FORCE=ring:simple:8                    every collective: Ring, Simple, 8 channels
//   FLASHCCL_TUNER_FORCE=allreduce:tree:ll,allgather:nccl:4
//
// Each comma-separated entry is [collective:]algorithm:protocol[:channels], or
// [collective:]nccl[:channels] to keep NCCL's algorithm and protocol and set only the channels.
// The first entry that names the call's collective, or names none, applies.
#pragma once

#include <string>

#include "tuning_table.h"

namespace flashccl {

constexpr const char* kForceVariable = "FLASHCCL_TUNER_FORCE";

// On failure returns false with *error naming the entry and what is wrong with it.
bool parseForcedChoice(const std::string& text, TuningTable* out, std::string* error);

}  // namespace flashccl
