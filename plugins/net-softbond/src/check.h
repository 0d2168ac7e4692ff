// Error propagation: every internal function that can fail returns ncclResult_t; SB_CHECK passes a
// failure up and leaves an INFO breadcrumb (file:line -> code), as NCCL does, so a failure deep
// inside is traceable from the log.
#pragma once

#include "log.h"

#define SB_CHECK(call)                                                                  \
  do {                                                                                  \
    ncclResult_t sb_check_result_ = (call);                                             \
    if (sb_check_result_ != ncclSuccess) {                                              \
      ::flashccl::softbond::logLine(NCCL_LOG_INFO, NCCL_LOG_SUBSYS_NET, __FILE__, __LINE__, \
                                    "%s:%d -> %d", __FILE__, __LINE__, (int)sb_check_result_); \
      return sb_check_result_;                                                          \
    }                                                                                   \
  } while (0)
