#include "runtime/setup_clock.h"

#include <cstdio>
#include <cstring>

namespace flashccl {

namespace {
thread_local SetupClock* tCurrent = nullptr;

double millisBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

SetupClock::SetupClock() : start_(Clock::now()), last_(start_), outer_(tCurrent) { tCurrent = this; }

SetupClock::~SetupClock() { tCurrent = outer_; }

void SetupClock::mark(const char* step) {
  const Clock::time_point now = Clock::now();
  const double ms = millisBetween(last_, now);
  last_ = now;
  for (auto& s : steps_) {
    if (std::strcmp(s.first, step) == 0) {
      s.second += ms;
      return;
    }
  }
  steps_.emplace_back(step, ms);
}

double SetupClock::totalMs() const { return millisBetween(start_, Clock::now()); }

std::string SetupClock::summary() const {
  char text[64];
  std::snprintf(text, sizeof(text), "%.1f ms", totalMs());
  std::string out = text;
  for (size_t i = 0; i < steps_.size(); ++i) {
    std::snprintf(text, sizeof(text), "%s%s %.1f", i == 0 ? " (" : ", ", steps_[i].first, steps_[i].second);
    out += text;
  }
  if (!steps_.empty()) out += ")";
  return out;
}

void markSetupStep(const char* step) {
  if (tCurrent != nullptr) tCurrent->mark(step);
}

}  // namespace flashccl
