// Logging through the function NCCL hands to init(), so the plugin's lines land in NCCL's log
// (NCCL_DEBUG, NCCL_DEBUG_FILE, NCCL_DEBUG_SUBSYS=NET) with NCCL's prefix. Every line starts with
// "NET/softbond". Before init, or when NCCL passed no logger, WARN lines go to stderr and INFO lines
// are dropped: a plugin must not print into someone else's process unasked.
#pragma once

#include "nccl_net_abi.h"

namespace flashccl::softbond {

// The latest non-NULL logger wins: with net v11, NCCL calls init once per communicator, always
// with the same function.
void setLogger(ncclDebugLogger_t logger);

void logLine(ncclDebugLogLevel level, unsigned long flags, const char* file, int line, const char* format, ...)
    __attribute__((format(printf, 5, 6)));

}  // namespace flashccl::softbond

#define SB_WARN(...) \
  ::flashccl::softbond::logLine(NCCL_LOG_WARN, NCCL_LOG_SUBSYS_NET, __FILE__, __LINE__, __VA_ARGS__)
#define SB_INFO(...) \
  ::flashccl::softbond::logLine(NCCL_LOG_INFO, NCCL_LOG_SUBSYS_NET, __FILE__, __LINE__, __VA_ARGS__)
#define SB_INIT_INFO(...)                                                                             \
  ::flashccl::softbond::logLine(NCCL_LOG_INFO, NCCL_LOG_SUBSYS_INIT | NCCL_LOG_SUBSYS_NET, __FILE__, \
                                __LINE__, __VA_ARGS__)
