#include "trace/trace_settings.h"

#include <strings.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "base/log.h"

namespace flashccl {

bool parseSignal(const std::string& text, int* signal) {
  if (text == "none" || text == "0" || text == "off") {
    *signal = 0;
    return true;
  }
  static const struct {
    const char* name;
    int number;
  } kSignals[] = {{"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP},   {"URG", SIGURG},
                  {"PWR", SIGPWR},   {"WINCH", SIGWINCH}, {"CONT", SIGCONT}};
  const char* name = text.c_str();
  if (strncasecmp(name, "SIG", 3) == 0) name += 3;
  for (const auto& entry : kSignals) {
    if (strcasecmp(name, entry.name) == 0) {
      *signal = entry.number;
      return true;
    }
  }
  char* end = nullptr;
  const long number = std::strtol(text.c_str(), &end, 10);
  // Signals that mean "stop" or "fault" are refused: a dump must never replace their meaning.
  for (int refused : {SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM,
                      SIGQUIT, SIGPIPE, SIGCHLD}) {
    if (number == refused) return false;
  }
  if (end != text.c_str() && *end == '\0' && number > 0 && number < NSIG) {
    *signal = static_cast<int>(number);
    return true;
  }
  return false;
}

TraceSettings TraceSettings::fromConfig(const Config& config) {
  TraceSettings settings;
  if (config.trace == "0" || config.trace == "off") {
    settings.mode = Mode::kOff;
  } else if (config.trace == "1" || config.trace == "on") {
    settings.mode = Mode::kOn;
  } else if (config.trace == "full") {
    settings.mode = Mode::kFull;
  } else {
    FCCL_WARN("FLASHCCL_TRACE='%s' is not 0, 1 or full; using the default 1", config.trace.c_str());
  }
  settings.entries = std::max<size_t>(1, config.traceEntries);
  settings.hangTimeoutNs = static_cast<int64_t>(config.hangTimeoutSeconds * 1e9);
  if (config.hangAction == "abort") {
    settings.action = Action::kAbort;
  } else if (config.hangAction == "revoke") {
    settings.action = Action::kRevoke;
  } else if (config.hangAction != "report") {
    FCCL_WARN("FLASHCCL_HANG_ACTION='%s' is not report, abort or revoke; using the default report",
              config.hangAction.c_str());
  }
  settings.dumpDir = config.traceDir;
  if (settings.dumpDir.empty()) {
    const char* tmp = getEnv("TMPDIR");
    settings.dumpDir = (tmp && *tmp) ? tmp : "/tmp";
  }
  if (!parseSignal(config.traceSignal, &settings.dumpSignal)) {
    FCCL_WARN("FLASHCCL_TRACE_SIGNAL='%s' is not a signal that may ask for a dump (e.g. SIGUSR1, "
              "SIGUSR2, none); using the default SIGUSR1", config.traceSignal.c_str());
    settings.dumpSignal = SIGUSR1;
  }
  return settings;
}

int64_t TraceSettings::pollIntervalNs() const {
  return std::min<int64_t>(1000000000, std::max<int64_t>(20000000, hangTimeoutNs / 10));
}

int TraceSettings::queryTimeoutMs() const {
  return static_cast<int>(std::min<int64_t>(2000, std::max<int64_t>(300, hangTimeoutNs / 2000000)));
}

int64_t TraceSettings::peerCheckAfterNs() const {
  return std::min<int64_t>(500000000, hangTimeoutNs);
}

int64_t TraceSettings::peerCheckIntervalNs() const { return 250000000; }

const TraceSettings& traceSettings() {
  // Never destroyed: the watchdog reads it while the process exits.
  static const TraceSettings* settings = new TraceSettings(TraceSettings::fromConfig(Config::get()));
  return *settings;
}

}  // namespace flashccl
