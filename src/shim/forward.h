// How an export reaches the real NCCL. Shared by every file in src/shim/.
#pragma once

#include <nccl.h>

#include "base/log.h"
#include "base/thread_state.h"
#include "base/nccl_functions.h"
#include "base/real_nccl.h"

// Exported with default visibility; the version script (exports.map) keeps only nccl*, pnccl* and
// flashccl*.
#define FLASHCCL_EXPORT extern "C" __attribute__((visibility("default")))

// pncclX: the same function at the same address, as NCCL exports it (the PMPI-style profiling
// entry point).
#define FLASHCCL_ALIAS(ret, name, params) \
  FLASHCCL_EXPORT ret p##name params __attribute__((alias(#name)));

namespace flashccl {

// The real NCCL's `member`, or nullptr with *error set: ncclSystemError when there is no real
// NCCL (discovery has WARNed), ncclInvalidUsage when this NCCL lacks the function (WARNs here).
template <typename Fn>
inline Fn realFunction(Fn RealNccl::*member, const char* name, ncclResult_t* error) {
  const RealNccl* real = realNccl();
  if (real == nullptr) {
    *error = ncclSystemError;
    return nullptr;
  }
  Fn fn = real->*member;
  if (fn == nullptr) *error = missingRealFunction(name);
  return fn;
}

}  // namespace flashccl

// `result = realX args`, under a ForwardScope so NCCL's calls back into its own exports are seen
// as nested. An error it returns is noted (ncclGetLastError answers with the newest error). `args` is parenthesised: FLASHCCL_CALL_REAL(res, ncclCommDestroy, (comm)).
#define FLASHCCL_CALL_REAL(result, name, args)                                                  \
  do {                                                                                          \
    ncclResult_t fccl_error_ = ncclSuccess;                                                     \
    auto fccl_fn_ = ::flashccl::realFunction(&::flashccl::RealNccl::name, #name, &fccl_error_); \
    if (fccl_fn_ == nullptr) {                                                                  \
      (result) = fccl_error_;                                                                   \
    } else {                                                                                    \
      ::flashccl::ForwardScope fccl_scope_;                                                     \
      (result) = fccl_fn_ args;                                                                 \
    }                                                                                           \
    if ((result) != ncclSuccess && (result) != ncclInProgress) ::flashccl::noteNcclError();     \
  } while (0)

// Whole body of a pure forward.
#define FLASHCCL_FORWARD(name, args)             \
  do {                                           \
    ncclResult_t fccl_result_;                   \
    FLASHCCL_CALL_REAL(fccl_result_, name, args); \
    return fccl_result_;                         \
  } while (0)
