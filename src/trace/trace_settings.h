// The fault locator's settings, checked once from the FLASHCCL_TRACE* and FLASHCCL_HANG_*
// variables (docs/trace.md): an unknown word gives a WARN and the default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/config.h"

namespace flashccl {

struct TraceSettings {
  enum class Mode { kOff, kOn, kFull };
  enum class Action { kReport, kAbort };

  Mode mode = Mode::kOn;
  size_t entries = 2048;
  int64_t hangTimeoutNs = 480LL * 1000000000;
  Action action = Action::kReport;
  std::string dumpDir;  // resolved: never empty
  int dumpSignal = 0;   // 0: none

  static TraceSettings fromConfig(const Config& config);

  // How often the watchdog looks: every tenth of the timeout, between 20 ms and 1 s, so that a
  // verdict comes soon after the timeout and looking costs nothing.
  int64_t pollIntervalNs() const;
  // How long a peer gets to answer over the side channel.
  int queryTimeoutMs() const;
};

// The process's settings (parsed once from Config::get()).
const TraceSettings& traceSettings();

// "SIGUSR1", "USR1", "10" -> the signal number; "none", "0", "off" -> 0. False for anything else.
bool parseSignal(const std::string& text, int* signal);

}  // namespace flashccl
