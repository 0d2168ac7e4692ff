// A receiver and a sender softbond_peer, each in a process of its own (optionally each in a
// network namespace), with timed actions -- a link taken down, a fault cleared -- while they run.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "child_process.h"

namespace softbond_test {

struct PeerSide {
  std::vector<std::string> prefix;  // e.g. {"ip", "netns", "exec", "ns"}; empty: run directly
  std::vector<std::pair<std::string, std::string>> env;
};

struct TimedAction {
  double atSeconds;  // after the sender started
  std::function<void()> action;
};

struct PairOutcome {
  ChildProcess::Exit sender, receiver;
  std::string senderResult, receiverResult;  // the RESULT lines ("" if none)
  std::string senderLog, receiverLog;        // stderr: the plugin's log lines
  double seconds = 0;                        // until both ended
  std::string setupError;

  bool bothOk() const { return sender.exitCode == 0 && receiver.exitCode == 0; }
  // A key=value field of a RESULT line, e.g. field(receiverResult, "max_gap_ms").
  static double field(const std::string& result, const std::string& key);
  std::string describe() const;
};

// Runs both peers with `planArgs` (softbond_peer's plan options), performing `actions` on time;
// each peer gets `timeoutSeconds` before it is killed.
// `onHandle` sees the receiver's connection handle (hex) before the sender starts.
PairOutcome runPeerPair(const PeerSide& receiver, const PeerSide& sender, const std::vector<std::string>& planArgs,
                        std::vector<TimedAction> actions, double timeoutSeconds,
                        const std::function<void(const std::string&)>& onHandle = nullptr);

// Lines of `log` containing every one of `needles`.
int countLines(const std::string& log, const std::vector<std::string>& needles);

}  // namespace softbond_test
