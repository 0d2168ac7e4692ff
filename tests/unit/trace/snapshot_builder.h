// Hand-built progress snapshots for the verdict and dump tests: one rank's calls on one
// communicator, with states and ages as a test wants them.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "trace/progress_snapshot.h"
#include "trace/verdict.h"

namespace flashccl {
namespace testing {

constexpr int64_t kSecond = 1000000000;

inline TraceCall collective(TraceKind kind, uint64_t count, ncclDataType_t dtype = ncclFloat32,
                            ncclRedOp_t op = ncclSum) {
  TraceCall call;
  call.kind = kind;
  call.count = count;
  call.dtype = dtype;
  call.op = takesRedOp(kind) ? op : -1;
  return call;
}

class SnapshotBuilder {
 public:
  SnapshotBuilder(uint64_t commHash, int rank, int nranks) {
    snapshot_.identity.commHash = commHash;
    snapshot_.identity.rank = rank;
    snapshot_.identity.nranks = nranks;
    snapshot_.identity.cudaDev = rank;
    snapshot_.identity.pid = 1000 + rank;
    snapshot_.identity.host = "h" + std::to_string(rank / 4);
    snapshot_.takenWallNs = 1700000000LL * kSecond;
    snapshot_.deviceProgressKnown = true;
  }

  // Adds the next collective (seq = last + 1) `ago` seconds before the snapshot.
  SnapshotBuilder& call(const TraceCall& call, CallState state, double agoSeconds,
                        double doneAgoSeconds = -1) {
    SnapshotCall entry;
    entry.recordId = snapshot_.calls.size();
    entry.call = call;
    if (isCollective(call.kind)) entry.seq = ++snapshot_.lastCollectiveSeq;
    if (isP2p(call.kind)) entry.seq = ++snapshot_.lastP2pSeq;
    entry.algorithm = "allreduce_oneshot";
    entry.call.launch = entry.recordId + 1;
    entry.state = state;
    entry.enqueuedAgoNs = static_cast<int64_t>(agoSeconds * kSecond);
    if (state == CallState::kStarted || state == CallState::kCompleted) {
      entry.startedAgoNs = entry.enqueuedAgoNs;
    }
    if (state == CallState::kCompleted) {
      entry.completedAgoNs =
          static_cast<int64_t>((doneAgoSeconds >= 0 ? doneAgoSeconds : agoSeconds) * kSecond);
    }
    snapshot_.calls.push_back(entry);
    snapshot_.recorded = snapshot_.calls.size();
    return *this;
  }
  // `n` completed AllReduce calls of 1024 floats, long ago.
  SnapshotBuilder& history(int n) {
    for (int i = 0; i < n; ++i) call(collective(TraceKind::kAllReduce, 1024), CallState::kCompleted, 100);
    return *this;
  }
  SnapshotBuilder& untracked() {
    snapshot_.deviceProgressKnown = false;
    for (SnapshotCall& entry : snapshot_.calls) {
      entry.state = CallState::kUntracked;
      entry.startedAgoNs = entry.completedAgoNs = -1;
      entry.call.launch = 0;
      entry.algorithm = "nccl";
    }
    return *this;
  }
  ProgressSnapshot build() const { return snapshot_; }

 private:
  ProgressSnapshot snapshot_;
};

inline RankReport reachable(const ProgressSnapshot& snapshot) {
  RankReport report;
  report.rank = snapshot.identity.rank;
  report.reachable = true;
  report.snapshot = snapshot;
  return report;
}

inline RankReport unreachable(int rank, const std::string& why, int64_t sinceWallNs = 0) {
  RankReport report;
  report.rank = rank;
  report.endpoint.magic = kTraceEndpointMagic;
  report.endpoint.pid = 1000 + rank;
  report.endpoint.cudaDev = rank;
  std::strncpy(report.endpoint.host, ("h" + std::to_string(rank / 4)).c_str(),
               sizeof(report.endpoint.host) - 1);
  report.why = why;
  report.unreachableSinceWallNs = sinceWallNs;
  return report;
}

inline CommReport commReport(std::vector<RankReport> ranks, double timeoutSeconds = 5) {
  CommReport report;
  report.nranks = static_cast<int>(ranks.size());
  report.ranks = std::move(ranks);
  report.timeoutNs = static_cast<int64_t>(timeoutSeconds * kSecond);
  if (!report.ranks.empty() && report.ranks[0].reachable) {
    report.commHash = report.ranks[0].snapshot.identity.commHash;
  }
  return report;
}

inline std::vector<std::string> texts(const std::vector<Finding>& findings) {
  std::vector<std::string> lines;
  for (const Finding& finding : findings) lines.push_back(finding.text);
  return lines;
}

}  // namespace testing
}  // namespace flashccl
