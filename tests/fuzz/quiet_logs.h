// Harnesses feed bad input on purpose: the WARN each one gets would drown libFuzzer's own output
// and slow it down. VERSION is the quietest level flashccl's log has; it is read once.
#pragma once

#include <cstdlib>

#include "base/log.h"

namespace flashccl::fuzz {

inline void quietLogs() {
  setenv("FLASHCCL_DEBUG", "VERSION", 1);
  (void)logEnabled(LogLevel::kWarn, 0);  // parses the settings now, before any input changes them
}

}  // namespace flashccl::fuzz
