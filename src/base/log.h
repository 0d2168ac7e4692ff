// NCCL-style logging for flashccl.
//
// Honours NCCL_DEBUG (VERSION/WARN/INFO/TRACE), NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE (%h host, %p pid)
// and FLASHCCL_DEBUG, which overrides NCCL_DEBUG for flashccl's own lines only. Lines look like NCCL's:
//   host:pid:tid [dev] flashccl INFO <message>
#pragma once

#include <cstdint>

namespace flashccl {

enum class LogLevel : int { kNone = 0, kVersion = 1, kWarn = 2, kInfo = 3, kTrace = 4 };

// Subsystems, named as in NCCL_DEBUG_SUBSYS so the same filter works for both libraries.
enum LogSubsys : uint32_t {
  kLogInit = 1u << 0,
  kLogColl = 1u << 1,
  kLogP2p = 1u << 2,
  kLogTune = 1u << 3,
  kLogEnv = 1u << 4,
  kLogAlloc = 1u << 5,
  kLogGraph = 1u << 6,
  kLogCall = 1u << 7,
  kLogAll = ~0u,
};

// Cheap after the first call: one relaxed load of the parsed settings.
bool logEnabled(LogLevel level, uint32_t subsys);
void logMessage(LogLevel level, uint32_t subsys, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
// Re-reads the environment (tests change it between cases, and ncclResetDebugInit asks NCCL to).
void logReset();
// With NCCL_DEBUG_FILE: once the real NCCL has the file open (its first init, which a non-blocking
// communicator may finish later), our lines join its descriptor, so neither overwrites the other.
// Called when communicators are created and when one becomes ready; one load once joined.
void adoptNcclLogFile();

// ncclGetLastError reports the newest error: ours (a WARN of flashccl's) or the real NCCL's. The
// shim notes every error the real NCCL returns through it; newestOwnWarn() is our last WARN line
// when it came after the last such error, else null (the text is this thread's copy, valid until
// its next call).
void noteNcclError();
const char* newestOwnWarn();

}  // namespace flashccl

#define FCCL_WARN(...)                                                                        \
  do {                                                                                        \
    if (::flashccl::logEnabled(::flashccl::LogLevel::kWarn, ::flashccl::kLogAll))            \
      ::flashccl::logMessage(::flashccl::LogLevel::kWarn, ::flashccl::kLogAll, __FILE__,     \
                             __LINE__, __VA_ARGS__);                                          \
  } while (0)

#define FCCL_INFO(subsys, ...)                                                                \
  do {                                                                                        \
    if (::flashccl::logEnabled(::flashccl::LogLevel::kInfo, (subsys)))                        \
      ::flashccl::logMessage(::flashccl::LogLevel::kInfo, (subsys), __FILE__, __LINE__,      \
                             __VA_ARGS__);                                                    \
  } while (0)

#define FCCL_TRACE(subsys, ...)                                                               \
  do {                                                                                        \
    if (::flashccl::logEnabled(::flashccl::LogLevel::kTrace, (subsys)))                       \
      ::flashccl::logMessage(::flashccl::LogLevel::kTrace, (subsys), __FILE__, __LINE__,     \
                             __VA_ARGS__);                                                    \
  } while (0)
