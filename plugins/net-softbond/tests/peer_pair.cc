#include "peer_pair.h"

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

namespace softbond_test {

double PairOutcome::field(const std::string& result, const std::string& key) {
  size_t at = result.find(" " + key + "=");
  return at == std::string::npos ? -1 : atof(result.c_str() + at + key.size() + 2);
}

std::string PairOutcome::describe() const {
  std::ostringstream text;
  if (!setupError.empty()) text << "set-up: " << setupError << "\n";
  text << "sender exit " << sender.exitCode << (sender.timedOut ? " (killed: overstayed)" : "") << ": "
       << senderResult << "\nreceiver exit " << receiver.exitCode << (receiver.timedOut ? " (killed: overstayed)" : "")
       << ": " << receiverResult << "\n--- sender log ---\n" << senderLog << "--- receiver log ---\n" << receiverLog;
  return text.str();
}

int countLines(const std::string& log, const std::vector<std::string>& needles) {
  std::istringstream lines(log);
  int count = 0;
  for (std::string line; std::getline(lines, line);) {
    bool all = true;
    for (const std::string& needle : needles) all = all && line.find(needle) != std::string::npos;
    count += all;
  }
  return count;
}

PairOutcome runPeerPair(const PeerSide& receiver, const PeerSide& sender, const std::vector<std::string>& planArgs,
                        std::vector<TimedAction> actions, double timeoutSeconds,
                        const std::function<void(const std::string&)>& onHandle) {
  PairOutcome outcome;
  ChildProcess recvProcess, sendProcess;
  std::vector<std::string> recvArgv = receiver.prefix;
  recvArgv.insert(recvArgv.end(), {SOFTBOND_PEER_PATH, "recv", "--plugin", SOFTBOND_PLUGIN_PATH});
  recvArgv.insert(recvArgv.end(), planArgs.begin(), planArgs.end());
  if (!recvProcess.start(recvArgv, receiver.env, &outcome.setupError)) return outcome;
  std::string handleLine = recvProcess.waitForLine("HANDLE ", 20);
  if (handleLine.empty()) {
    outcome.setupError = "the receiver printed no handle";
    outcome.receiver = recvProcess.wait(1);
    outcome.receiverLog = recvProcess.errorOutput();
    return outcome;
  }
  if (onHandle) onHandle(handleLine.substr(7));
  std::vector<std::string> sendArgv = sender.prefix;
  sendArgv.insert(sendArgv.end(), {SOFTBOND_PEER_PATH, "send", "--plugin", SOFTBOND_PLUGIN_PATH, "--handle",
                                   handleLine.substr(7)});
  sendArgv.insert(sendArgv.end(), planArgs.begin(), planArgs.end());
  if (!sendProcess.start(sendArgv, sender.env, &outcome.setupError)) return outcome;

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  bool senderDone = false, receiverDone = false;
  size_t nextAction = 0;
  while (!(senderDone && receiverDone)) {
    while (nextAction < actions.size() && elapsed() >= actions[nextAction].atSeconds) actions[nextAction++].action();
    senderDone = senderDone || sendProcess.ended(&outcome.sender);
    receiverDone = receiverDone || recvProcess.ended(&outcome.receiver);
    if (elapsed() > timeoutSeconds) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Actions still due (e.g. bringing a link back up) run anyway, so the network is left as found.
  while (nextAction < actions.size()) actions[nextAction++].action();
  if (!senderDone) outcome.sender = sendProcess.wait(0);
  if (!receiverDone) outcome.receiver = recvProcess.wait(0);
  outcome.seconds = elapsed();
  outcome.senderResult = sendProcess.waitForLine("RESULT ", 0);
  outcome.receiverResult = recvProcess.waitForLine("RESULT ", 0);
  outcome.senderLog = sendProcess.errorOutput();
  outcome.receiverLog = recvProcess.errorOutput();
  return outcome;
}

}  // namespace softbond_test
