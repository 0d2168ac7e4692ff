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
  enum class Action { kReport, kAbort, kRevoke };

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
  // A dead peer is not a hang (docs/design.md, "Every wait can end"): once one of our calls has
  // waited peerCheckAfterNs() (half a second, or the timeout when shorter), the watchdog checks
  // every peerCheckIntervalNs() that the peers' processes still exist (their side channels still
  // accept connections), so that a peer known gone fails the communicator in about a second
  // instead of at the timeout. The watchdog wakes at least that often.
  int64_t peerCheckAfterNs() const;
  int64_t peerCheckIntervalNs() const;
};

// The process's settings (parsed once from Config::get()).
const TraceSettings& traceSettings();

// "SIGUSR1", "USR1", "10" -> the signal number; "none", "0", "off" -> 0. False for anything else.
bool parseSignal(const std::string& text, int* signal);

}  // namespace flashccl
