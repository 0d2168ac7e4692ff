#include "trace/trace_clock.h"

#include <cstdio>

namespace flashccl {

std::string clockTimeText(int64_t wall) {
  const time_t seconds = static_cast<time_t>(wall / 1000000000);
  struct tm local;
  localtime_r(&seconds, &local);
  char text[16];
  std::snprintf(text, sizeof(text), "%02d:%02d:%02d", local.tm_hour, local.tm_min, local.tm_sec);
  return text;
}

std::string durationText(int64_t ns) {
  if (ns < 0) ns = 0;
  char text[32];
  const double seconds = static_cast<double>(ns) / 1e9;
  if (seconds < 1.0) {
    std::snprintf(text, sizeof(text), "%d ms", static_cast<int>(ns / 1000000));
  } else if (seconds < 10.0) {
    std::snprintf(text, sizeof(text), "%.1f s", seconds);
  } else if (seconds < 1000.0) {
    std::snprintf(text, sizeof(text), "%d s", static_cast<int>(seconds));
  } else {
    std::snprintf(text, sizeof(text), "%d min", static_cast<int>(seconds / 60.0));
  }
  return text;
}

}  // namespace flashccl
