// Where a communicator's set-up spends its time: one INFO line per set-up names each step's
// milliseconds (docs/troubleshooting.md, "Set-up time"), so a slow init can be pinned on the step
// that is slow on that machine without a profiler.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace flashccl {

class SetupClock {
 public:
  SetupClock();
  ~SetupClock();
  SetupClock(const SetupClock&) = delete;
  SetupClock& operator=(const SetupClock&) = delete;

  // The time since the previous mark (or the start) goes to `step`; a step marked twice adds up.
  void mark(const char* step);
  double totalMs() const;
  // "12.3 ms (nodes 1.0, layout agreement 0.8, ...)".
  std::string summary() const;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_, last_;
  std::vector<std::pair<const char*, double>> steps_;
  SetupClock* outer_ = nullptr;
};

// Marks the set-up clock running on this thread, if any: the steps deep inside set-up are timed
// without a clock passed through every call between.
void markSetupStep(const char* step);

}  // namespace flashccl
