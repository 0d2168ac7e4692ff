// Weak stand-in for src/core/log.cc (see README.md): WARN lines to stderr, nothing else.
#include <cstdarg>
#include <cstdio>

#include "core/log.h"

namespace flashccl {

__attribute__((weak)) bool logEnabled(LogLevel level, uint32_t subsys) {
  return level <= LogLevel::kWarn;
}

__attribute__((weak)) void logMessage(LogLevel level, uint32_t subsys, const char* file, int line,
                                      const char* fmt, ...) {
  std::fprintf(stderr, "flashccl %s [stand-in log] ", level == LogLevel::kWarn ? "WARN" : "INFO");
  va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fputc('\n', stderr);
}

__attribute__((weak)) void logReset() {}

}  // namespace flashccl
