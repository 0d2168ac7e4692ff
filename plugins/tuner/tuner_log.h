// Log lines through NCCL's own logger (the one init receives), so they land where NCCL's do and
// obey NCCL_DEBUG / NCCL_DEBUG_SUBSYS. Every line starts "TUNER/flashccl: ", as NCCL's own tuner
// lines start "TUNER/".
#pragma once

#include <string>

#include "nccl_tuner_abi.h"

#define FLASHCCL_TUNER_LOG(logger, level, subsys, fmt, ...)                              \
  do {                                                                                  \
    if ((logger) != nullptr)                                                            \
      (logger)((level), (subsys), __FILE__, __LINE__, "TUNER/flashccl: " fmt, __VA_ARGS__); \
  } while (0)

namespace flashccl {

inline void tunerWarn(nccl_abi::Logger logger, const std::string& message) {
  FLASHCCL_TUNER_LOG(logger, nccl_abi::kLogWarn, nccl_abi::kSubsysTuning, "%s", message.c_str());
}

// At init: shown at NCCL_DEBUG=INFO with NCCL's default subsystems (INIT), or with TUNING.
inline void tunerInitInfo(nccl_abi::Logger logger, const std::string& message) {
  FLASHCCL_TUNER_LOG(logger, nccl_abi::kLogInfo, nccl_abi::kSubsysInit | nccl_abi::kSubsysTuning,
                     "%s", message.c_str());
}

}  // namespace flashccl
