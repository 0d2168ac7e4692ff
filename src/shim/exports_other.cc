// The exports that do not return ncclResult_t. Each has its own answer for "no real NCCL" and
// "this NCCL lacks it" (NCCL_OTHER_FUNCTIONS in base/nccl_functions.h lists them).
#include "base/log.h"
#include "base/result_string.h"
#include "shim/forward.h"

namespace {

using flashccl::RealNccl;

// The real function, or nullptr (a WARN names it when the loaded NCCL lacks it).
template <typename Fn>
Fn otherFunction(Fn RealNccl::*member, const char* name) {
  const RealNccl* real = flashccl::realNccl();
  if (real == nullptr) return nullptr;
  Fn fn = real->*member;
  if (fn == nullptr) flashccl::missingRealFunction(name);
  return fn;
}

#define FLASHCCL_OTHER(name) otherFunction(&RealNccl::name, #name)

}  // namespace

FLASHCCL_EXPORT const char* ncclGetErrorString(ncclResult_t result) {
  // Must work without a real NCCL: it is how the app reads why every other call failed.
  const RealNccl* real = flashccl::realNccl();
  if (real == nullptr || real->ncclGetErrorString == nullptr) {
    return flashccl::resultString(result);
  }
  flashccl::ForwardScope scope;
  return real->ncclGetErrorString(result);
}
FLASHCCL_ALIAS(const char*, ncclGetErrorString, (ncclResult_t result))

FLASHCCL_EXPORT const char* ncclGetLastError(ncclComm_t comm) {
  if (flashccl::realNccl() == nullptr) return flashccl::realNcclError().c_str();
  // Ours when flashccl's last WARN (a call mismatch, a stream of another device, ...) came after
  // the last error the real NCCL returned; NCCL's own otherwise.
  if (const char* ours = flashccl::newestOwnWarn()) return ours;
  auto fn = FLASHCCL_OTHER(ncclGetLastError);
  if (fn == nullptr) return nullptr;
  flashccl::ForwardScope scope;
  return fn(comm);
}
FLASHCCL_ALIAS(const char*, ncclGetLastError, (ncclComm_t comm))

FLASHCCL_EXPORT void ncclResetDebugInit() {
  flashccl::logReset();  // NCCL re-reads NCCL_DEBUG*; so do we
  if (auto fn = FLASHCCL_OTHER(ncclResetDebugInit)) {
    flashccl::ForwardScope scope;
    fn();
  }
}
FLASHCCL_ALIAS(void, ncclResetDebugInit, ())

// NCCL exports this one without a pncclResetDebugInitInternal twin; so do we.
FLASHCCL_EXPORT void ncclResetDebugInitInternal() {
  flashccl::logReset();
  if (auto fn = FLASHCCL_OTHER(ncclResetDebugInitInternal)) {
    flashccl::ForwardScope scope;
    fn();
  }
}

// NCCL 2.32: its parameters to its log. Where the loaded NCCL lacks it, the WARN is the answer.
FLASHCCL_EXPORT void ncclParamDumpAll(void) {
  if (auto fn = FLASHCCL_OTHER(ncclParamDumpAll)) {
    flashccl::ForwardScope scope;
    fn();
  }
}
FLASHCCL_ALIAS(void, ncclParamDumpAll, (void))

#define FLASHCCL_DEFINE_TEAM(name)                       \
  FLASHCCL_EXPORT ncclTeam_t name(ncclComm_t comm) {     \
    if (auto fn = FLASHCCL_OTHER(name)) {                \
      flashccl::ForwardScope scope;                      \
      return fn(comm);                                   \
    }                                                    \
    return ncclTeam_t{0, 0, 0};                          \
  }                                                      \
  FLASHCCL_ALIAS(ncclTeam_t, name, (ncclComm_t comm))
FLASHCCL_DEFINE_TEAM(ncclTeamWorld)
FLASHCCL_DEFINE_TEAM(ncclTeamLsa)
FLASHCCL_DEFINE_TEAM(ncclTeamRail)
FLASHCCL_DEFINE_TEAM(ncclTeamCftMultimem)

// NCCL 2.32: the CFT team, by mode (nccl_device/core.h).
FLASHCCL_EXPORT ncclTeam_t ncclTeamCft(ncclComm_t comm, FlashcclCftTeamMode mode) {
  if (auto fn = FLASHCCL_OTHER(ncclTeamCft)) {
    flashccl::ForwardScope scope;
    return fn(comm, mode);
  }
  return ncclTeam_t{0, 0, 0};
}
FLASHCCL_ALIAS(ncclTeam_t, ncclTeamCft, (ncclComm_t comm, FlashcclCftTeamMode mode))

#define FLASHCCL_DEFINE_TEAM_RANK(name)                                      \
  FLASHCCL_EXPORT int name(ncclComm_t comm, ncclTeam_t team, int rank) {     \
    if (auto fn = FLASHCCL_OTHER(name)) {                                    \
      flashccl::ForwardScope scope;                                          \
      return fn(comm, team, rank);                                           \
    }                                                                        \
    return -1;                                                               \
  }                                                                          \
  FLASHCCL_ALIAS(int, name, (ncclComm_t comm, ncclTeam_t team, int rank))
FLASHCCL_DEFINE_TEAM_RANK(ncclTeamRankToWorld)
FLASHCCL_DEFINE_TEAM_RANK(ncclTeamRankToLsa)

FLASHCCL_EXPORT int ncclLLA2ACalcSlots(int maxElts, int maxEltSize) {
  if (auto fn = FLASHCCL_OTHER(ncclLLA2ACalcSlots)) {
    flashccl::ForwardScope scope;
    return fn(maxElts, maxEltSize);
  }
  return -1;
}
FLASHCCL_ALIAS(int, ncclLLA2ACalcSlots, (int maxElts, int maxEltSize))
