// The recorder's clocks. Calls are stamped with the kernel's coarse monotonic clock: it costs a few
// nanoseconds where a precise clock read costs 20-45 ns (measured on the CPU build machine), most
// of the 50 ns a record may take. Its resolution (the scheduler tick, 1-4 ms) is far finer than
// anything a hang verdict says. Shown times are ages (now minus a stamp), or wall-clock stamps
// taken as such (wallNs()).
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace flashccl {

// Coarse monotonic nanoseconds (CLOCK_MONOTONIC_COARSE).
inline int64_t traceNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Precise monotonic nanoseconds, for deadlines and poll intervals (never on the per-call path).
inline int64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Wall-clock nanoseconds since the epoch.
inline int64_t wallNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// "12:03:41", local time of a wall-clock stamp.
std::string clockTimeText(int64_t wallNs);

// "850 ms", "2.5 s", "65 s", "14 min", for how long ago something happened.
std::string durationText(int64_t ns);

}  // namespace flashccl
