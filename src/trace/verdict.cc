#include "trace/verdict.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

#include "base/coll_call.h"
#include "base/size_text.h"
#include "trace/trace_clock.h"

namespace flashccl {

namespace {

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();
constexpr size_t kMaxNotCalledLines = 8;

bool progressKnown(CallState state) {
  return state != CallState::kUntracked && state != CallState::kCaptured;
}

std::string identityText(const RankReport& report) {
  std::string host;
  int pid = 0, gpu = -1;
  if (report.reachable) {
    host = report.snapshot.identity.host;
    pid = report.snapshot.identity.pid;
    gpu = report.snapshot.identity.cudaDev;
  } else if (report.endpoint.magic == kTraceEndpointMagic) {
    host = std::string(report.endpoint.host, strnlen(report.endpoint.host, sizeof(report.endpoint.host)));
    pid = report.endpoint.pid;
    gpu = report.endpoint.cudaDev;
  } else {
    return "";
  }
  std::string text = " (host " + (host.empty() ? std::string("?") : host) + ", pid " +
                     std::to_string(pid);
  if (gpu >= 0) text += ", GPU " + std::to_string(gpu);
  return text + ")";
}

Finding makeFinding(Finding::Kind kind, uint64_t seq, std::vector<int> ranks, bool blocking,
                    std::string text) {
  Finding finding;
  finding.kind = kind;
  finding.seq = seq;
  finding.ranks = std::move(ranks);
  finding.blocking = blocking;
  finding.text = std::move(text);
  return finding;
}

std::string rankWithIdentity(const RankReport& report) {
  return "rank " + std::to_string(report.rank) + identityText(report);
}

// What a call's arguments must agree on between ranks. User-created operators (PreMulSum) are
// per-rank handles and compare as one class.
std::tuple<int, uint64_t, int32_t, int32_t, int32_t> descriptor(const TraceCall& call) {
  const int32_t op = !takesRedOp(call.kind) ? -1 : isUserRedOp(call.op) ? ncclNumOps : call.op;
  const int32_t root = takesRoot(call.kind) ? call.peer : -1;
  return {static_cast<int>(call.kind), call.count, call.dtype, op, root};
}

const char* opText(int32_t op) {
  return isUserRedOp(op) ? "premulsum" : redOpName(op);
}

// What became of a rank's last call, for "its last call, X, <this>".
std::string stateText(const SnapshotCall& call) {
  switch (call.state) {
    case CallState::kCompleted:
      return call.completedAgoNs >= 0 ? "completed " + durationText(call.completedAgoNs) + " ago"
                                       : "has completed";
    case CallState::kStarted:
      return (call.startedAgoNs >= 0 ? "started " + durationText(call.startedAgoNs) + " ago"
                                     : "was made " + durationText(call.enqueuedAgoNs) +
                                           " ago, started,") +
             " and has not completed";
    case CallState::kEnqueued:
      return "was made " + durationText(call.enqueuedAgoNs) + " ago and has not started";
    case CallState::kCaptured:
      return "was captured into a CUDA graph " + durationText(call.enqueuedAgoNs) + " ago";
    case CallState::kFailed:
      return "failed to launch " + durationText(call.enqueuedAgoNs) + " ago (the call returned an error there)";
    case CallState::kUntracked:
      break;
  }
  return "was made " + durationText(call.enqueuedAgoNs) + " ago";
}

struct Facts {
  const CommReport& report;
  std::vector<const RankReport*> reachable;
  std::vector<const RankReport*> unreachable;

  explicit Facts(const CommReport& r) : report(r) {
    for (const RankReport& rank : r.ranks) (rank.reachable ? reachable : unreachable).push_back(&rank);
  }

  // How long the ranks that entered `seq` have waited in it (the longest; forever when a rank is
  // so far ahead that the call has left its snapshot).
  int64_t waitedIn(uint64_t seq, const std::vector<int>& ranks) const {
    int64_t longest = 0;
    for (int rank : ranks) {
      const SnapshotCall* call = report.ranks[rank].snapshot.collective(seq);
      longest = std::max(longest, call ? call->enqueuedAgoNs : kForever);
    }
    return longest;
  }

  const SnapshotCall* firstCall(uint64_t seq, const std::vector<int>& ranks) const {
    for (int rank : ranks) {
      if (const SnapshotCall* call = report.ranks[rank].snapshot.collective(seq)) return call;
    }
    return nullptr;
  }

  // The oldest call some reachable rank is known to wait in for at least the timeout.
  bool oldestKnownWait(const SnapshotCall** oldest, std::vector<int>* waiters) const {
    *oldest = nullptr;
    for (const RankReport* rank : reachable) {
      for (const SnapshotCall& call : rank->snapshot.calls) {
        if (!isPending(call.state) || call.enqueuedAgoNs < report.timeoutNs) continue;
        if (*oldest == nullptr || call.enqueuedAgoNs > (*oldest)->enqueuedAgoNs) *oldest = &call;
        break;
      }
    }
    if (*oldest == nullptr) return false;
    waiters->clear();
    for (const RankReport* rank : reachable) {
      for (const SnapshotCall& call : rank->snapshot.calls) {
        if (call.seq == (*oldest)->seq && call.call.kind == (*oldest)->call.kind &&
            isPending(call.state)) {
          waiters->push_back(rank->rank);
          break;
        }
      }
    }
    return true;
  }
};

void findMismatch(const Facts& facts, std::vector<Finding>* findings) {
  std::map<uint64_t, std::vector<std::pair<int, const SnapshotCall*>>> bySeq;
  for (const RankReport* rank : facts.reachable) {
    for (const SnapshotCall& call : rank->snapshot.calls) {
      if (isCollective(call.call.kind) && call.seq != 0) bySeq[call.seq].push_back({rank->rank, &call});
    }
  }
  for (const auto& entry : bySeq) {
    if (entry.second.size() < 2) continue;
    // Groups of ranks that agree, largest first, then by lowest rank.
    std::map<std::tuple<int, uint64_t, int32_t, int32_t, int32_t>,
             std::pair<std::vector<int>, const SnapshotCall*>> groups;
    for (const auto& rankCall : entry.second) {
      auto& group = groups[descriptor(rankCall.second->call)];
      group.first.push_back(rankCall.first);
      group.second = rankCall.second;
    }
    if (groups.size() < 2) continue;
    std::vector<std::pair<std::vector<int>, const SnapshotCall*>> ordered;
    for (auto& group : groups) {
      std::sort(group.second.first.begin(), group.second.first.end());
      ordered.push_back(group.second);
    }
    std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      if (a.first.size() != b.first.size()) return a.first.size() > b.first.size();
      return a.first.front() < b.first.front();
    });
    for (size_t i = 1; i < ordered.size(); ++i) {
      findings->push_back(makeFinding(
          Finding::Kind::kMismatch, entry.first, ordered[i].first, true,
          ranksText(ordered[i].first) + " called " + callArgumentsText(ordered[i].second->call) +
              " where " + ranksText(ordered[0].first) + " called " +
              callArgumentsText(ordered[0].second->call) + " at seq " + std::to_string(entry.first)));
    }
    return;  // later sequence numbers only repeat the consequence
  }
}

// Returns whether ranks are at different sequence numbers (then the GPU-stall rule is moot).
bool findNotCalled(const Facts& facts, std::vector<Finding>* findings) {
  uint64_t minSeq = std::numeric_limits<uint64_t>::max(), maxSeq = 0;
  for (const RankReport* rank : facts.reachable) {
    minSeq = std::min(minSeq, rank->snapshot.lastCollectiveSeq);
    maxSeq = std::max(maxSeq, rank->snapshot.lastCollectiveSeq);
  }
  if (facts.reachable.empty() || minSeq == maxSeq) return false;
  const uint64_t seq = minSeq + 1;
  std::vector<int> waiters, laggards;
  for (const RankReport* rank : facts.reachable) {
    (rank->snapshot.lastCollectiveSeq >= seq ? waiters : laggards).push_back(rank->rank);
  }
  if (facts.waitedIn(seq, waiters) < facts.report.timeoutNs) return true;
  const SnapshotCall* awaited = facts.firstCall(seq, waiters);
  const std::string what = awaited ? callWithSizeText(awaited->call, seq, facts.report.nranks)
                                   : "seq " + std::to_string(seq);
  const std::string waitPhrase = " that " + ranksText(waiters) +
                                 (waiters.size() == 1 ? " waits in" : " wait in");
  for (size_t i = 0; i < laggards.size() && i < kMaxNotCalledLines; ++i) {
    const RankReport& laggard = facts.report.ranks[laggards[i]];
    Finding finding = makeFinding(Finding::Kind::kNotCalled, seq, {laggard.rank}, true,
                                  rankWithIdentity(laggard) + " has not called " + what + waitPhrase + "; ");
    const SnapshotCall* last = laggard.snapshot.collective(minSeq);
    if (minSeq == 0) {
      finding.text += "it has made no collective call on this communicator";
    } else if (last == nullptr) {
      finding.text += "its last call is seq " + std::to_string(minSeq);
    } else {
      finding.text += "its last call, " + std::string(traceKindName(last->call.kind)) + " seq " +
                      std::to_string(minSeq) + ", " + stateText(*last);
    }
    findings->push_back(finding);
  }
  if (laggards.size() > kMaxNotCalledLines) {
    const std::vector<int> more(laggards.begin() + kMaxNotCalledLines, laggards.end());
    findings->push_back(makeFinding(Finding::Kind::kNotCalled, seq, more, true,
                                    ranksText(more) + " have not called " + what + " either"));
  }
  return true;
}

void findUnreachable(const Facts& facts, std::vector<Finding>* findings) {
  if (facts.unreachable.empty()) return;
  const SnapshotCall* waited = nullptr;
  std::vector<int> waiters;
  const bool someoneWaits = facts.oldestKnownWait(&waited, &waiters);
  for (const RankReport* rank : facts.unreachable) {
    Finding finding = makeFinding(Finding::Kind::kUnreachable, 0, {rank->rank}, someoneWaits,
                                  rankWithIdentity(*rank) + " unreachable");
    if (rank->unreachableSinceWallNs > 0) {
      finding.text += " since " + clockTimeText(rank->unreachableSinceWallNs);
    }
    finding.text += " (" + rank->why + ")";
    if (someoneWaits) {
      finding.seq = waited->seq;
      finding.text += "; " + ranksText(waiters) + (waiters.size() == 1 ? " has" : " have") +
                      " waited " + durationText(waited->enqueuedAgoNs) + " in " +
                      callWithSizeText(waited->call, waited->seq, facts.report.nranks);
    }
    findings->push_back(finding);
  }
}

void findKernelStall(const Facts& facts, std::vector<Finding>* findings) {
  if (facts.reachable.empty() || !facts.unreachable.empty()) return;
  const uint64_t seq = facts.reachable.front()->snapshot.lastCollectiveSeq;
  if (seq == 0) return;
  std::vector<int> completed, started, notStarted, failed;
  const SnapshotCall* any = nullptr;
  int64_t waited = 0;
  for (const RankReport* rank : facts.reachable) {
    const SnapshotCall* call = rank->snapshot.collective(seq);
    if (call == nullptr || !progressKnown(call->state)) return;
    any = call;
    if (call->state == CallState::kCompleted) {
      completed.push_back(rank->rank);
      continue;
    }
    if (call->state == CallState::kFailed) {
      failed.push_back(rank->rank);
      continue;
    }
    waited = std::max(waited, call->enqueuedAgoNs);
    (call->state == CallState::kStarted ? started : notStarted).push_back(rank->rank);
  }
  if (started.empty() && notStarted.empty()) return;
  if (waited < facts.report.timeoutNs) return;
  const std::string entered = "all ranks entered " +
                              callWithSizeText(any->call, seq, facts.report.nranks);
  auto add = [&](Finding::Kind kind, const std::vector<int>& ranks, const std::string& text) {
    findings->push_back(makeFinding(kind, seq, ranks, true, text));
  };
  auto whose = [](const std::vector<int>& ranks) {
    return ranksText(ranks) + (ranks.size() == 1 ? "'s kernel has" : "' kernels have");
  };
  const std::string notStartedWhy = " (work queued before it on its stream has not finished)";
  if (!failed.empty()) {
    // Nothing else matters: the others wait for a kernel that will never run.
    std::vector<int> waiting = started;
    waiting.insert(waiting.end(), notStarted.begin(), notStarted.end());
    std::sort(waiting.begin(), waiting.end());
    add(Finding::Kind::kLaunchFailed, failed,
        entered + "; " + ranksText(failed) + (failed.size() == 1 ? "'s launch" : "' launches") +
            " failed there (the call returned an error to the application), and " + ranksText(waiting) +
            (waiting.size() == 1 ? " has" : " have") + " waited " + durationText(waited) + " for it");
    return;
  }
  if (!completed.empty()) {
    if (!started.empty()) {
      add(Finding::Kind::kKernelNotCompleted, started,
          entered + "; " + whose(started) + " not completed after " + durationText(waited) +
              " (" + ranksText(completed) + " completed it)");
    }
    if (!notStarted.empty()) {
      add(Finding::Kind::kKernelNotStarted, notStarted,
          entered + "; " + whose(notStarted) + " not started after " + durationText(waited) +
              notStartedWhy);
    }
  } else if (!notStarted.empty() && !started.empty()) {
    add(Finding::Kind::kKernelNotStarted, notStarted,
        entered + "; " + whose(notStarted) + " not started after " + durationText(waited) +
            notStartedWhy + ", " + ranksText(started) + (started.size() == 1 ? " has" : " have") +
            " started and " + (started.size() == 1 ? "waits" : "wait") + " for it");
  } else if (notStarted.empty()) {
    add(Finding::Kind::kKernelsStuck, started,
        entered + " and started their kernels; none has completed after " + durationText(waited) +
            " (a kernel or a link between GPUs is stuck)");
  } else {
    add(Finding::Kind::kKernelNotStarted, notStarted,
        entered + "; no rank's kernel has started after " + durationText(waited) +
            " (every stream is blocked by earlier work)");
  }
}

void findP2pWaits(const Facts& facts, std::vector<Finding>* findings) {
  for (const RankReport* rank : facts.reachable) {
    const SnapshotCall* oldest = nullptr;
    for (const SnapshotCall& call : rank->snapshot.calls) {
      if (isPending(call.state)) {
        oldest = &call;
        break;
      }
    }
    if (oldest == nullptr || !isP2p(oldest->call.kind) ||
        oldest->enqueuedAgoNs < facts.report.timeoutNs) {
      continue;
    }
    const int peer = oldest->call.peer;
    Finding finding = makeFinding(Finding::Kind::kP2pWait, oldest->seq, {rank->rank}, true,
                                  rankWithIdentity(*rank) + " has waited " +
                                      durationText(oldest->enqueuedAgoNs) + " in " +
                                      callArgumentsText(oldest->call) + " (p2p seq " +
                                      std::to_string(oldest->seq) + "); ");
    if (peer < 0 || peer >= facts.report.nranks) {
      finding.text += "its peer is not a rank of this communicator";
    } else if (!facts.report.ranks[peer].reachable) {
      finding.text += "rank " + std::to_string(peer) + " is unreachable";
    } else if (const SnapshotCall* last = facts.report.ranks[peer].snapshot.newestCall()) {
      finding.text += "rank " + std::to_string(peer) + "'s last call, " +
                      callArgumentsText(last->call) +
                      (last->seq ? std::string(isP2p(last->call.kind) ? " p2p" : "") + " seq " +
                                       std::to_string(last->seq)
                                 : std::string()) +
                      ", " + stateText(*last);
    } else {
      finding.text += "rank " + std::to_string(peer) + " has made no call on this communicator";
    }
    findings->push_back(finding);
  }
}

}  // namespace

std::string Finding::key() const {
  std::string text = std::to_string(static_cast<int>(kind)) + ":" + std::to_string(seq) + ":";
  for (int rank : ranks) text += std::to_string(rank) + ",";
  return text;
}

std::vector<Finding> analyzeHang(const CommReport& report) {
  const Facts facts(report);
  std::vector<Finding> findings;
  findMismatch(facts, &findings);
  const bool apart = findNotCalled(facts, &findings);
  findUnreachable(facts, &findings);
  if (!apart) findKernelStall(facts, &findings);
  findP2pWaits(facts, &findings);
  return findings;
}

bool anyBlocking(const std::vector<Finding>& findings) {
  for (const Finding& finding : findings) {
    if (finding.blocking) return true;
  }
  return false;
}

std::string rankRangesText(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string text;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(ranks[i]);
    if (j > i) text += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

std::string ranksText(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + rankRangesText(ranks);
}

std::string callArgumentsText(const TraceCall& call) {
  std::string text = std::string(traceKindName(call.kind));
  if (isGroupMark(call.kind)) return text;
  text += "(" + std::to_string(call.count) + " x " +
          dtypeName(call.dtype);
  if (takesRedOp(call.kind)) text += ", " + std::string(opText(call.op));
  if (takesRoot(call.kind)) text += ", root " + std::to_string(call.peer);
  if (call.kind == TraceKind::kSend) text += ", to rank " + std::to_string(call.peer);
  if (call.kind == TraceKind::kRecv) text += ", from rank " + std::to_string(call.peer);
  return text + ")";
}

std::string callWithSizeText(const TraceCall& call, uint64_t seq, int nranks) {
  uint64_t bytes = call.count * dtypeSize(call.dtype);
  switch (call.kind) {
    case TraceKind::kAllGather: case TraceKind::kReduceScatter: case TraceKind::kAllToAll:
    case TraceKind::kGather: case TraceKind::kScatter:
      bytes *= static_cast<uint64_t>(nranks > 0 ? nranks : 1);
      break;
    default:
      break;
  }
  std::string text = std::string(traceKindName(call.kind)) + " seq " + std::to_string(seq) + " (" +
                     bytesText(bytes) + " " + dtypeName(call.dtype);
  if (takesRedOp(call.kind)) text += " " + std::string(opText(call.op));
  if (takesRoot(call.kind)) text += ", root " + std::to_string(call.peer);
  return text + ")";
}

std::string bytesText(uint64_t bytes) { return formatBytes(size_t(bytes)); }

}  // namespace flashccl
