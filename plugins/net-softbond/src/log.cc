#include "log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace flashccl::softbond {
namespace {
std::atomic<ncclDebugLogger_t> g_logger{nullptr};
}  // namespace

void setLogger(ncclDebugLogger_t logger) {
  if (logger) g_logger.store(logger, std::memory_order_release);
}

void logLine(ncclDebugLogLevel level, unsigned long flags, const char* file, int line, const char* format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  ncclDebugLogger_t logger = g_logger.load(std::memory_order_acquire);
  if (logger) {
    // Our text goes in as an argument, never as NCCL's format string.
    logger(level, flags, file, line, "NET/softbond : %s", text);
  } else if (level == NCCL_LOG_WARN) {
    fprintf(stderr, "NET/softbond WARN %s\n", text);
  }
}

}  // namespace flashccl::softbond
