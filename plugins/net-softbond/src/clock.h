// Monotonic time in milliseconds: every timeout in the plugin is measured with it.
#pragma once

#include <time.h>

#include <cstdint>

namespace flashccl::softbond {

inline int64_t monotonicMs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

}  // namespace flashccl::softbond
