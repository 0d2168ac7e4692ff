// From every rank's progress on one communicator, what is wrong: one finding per fault, each with
// the line a user reads. A pure function of its input, shared by the watchdog (live snapshots
// over the side channel) and `flashccl trace` (dumps).
//
// The rules, in order:
//  - mismatch: at the lowest sequence number where ranks recorded different calls (kind, count,
//    type, operator, root), the ranks outside the largest group called something else;
//  - not called: when some ranks entered sequence S (and have waited in it at least the timeout)
//    while others' last call is S-1, those others have not called S;
//  - unreachable: a rank that did not answer; blocking only when another rank is known to wait;
//  - GPU stall: every rank entered S; the ranks whose kernel has not completed (or not started)
//    while others' has, or every rank's when none has;
//  - point-to-point: a Send or Recv known to wait at least the timeout, with what its peer did.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/progress_snapshot.h"
#include "trace/trace_endpoint.h"

namespace flashccl {

struct RankReport {
  int rank = -1;
  bool reachable = false;
  ProgressSnapshot snapshot;  // when reachable
  // When not: who it is (from set-up), why it did not answer, since when (0: unknown).
  TraceEndpoint endpoint;
  std::string why;
  int64_t unreachableSinceWallNs = 0;
};

struct CommReport {
  uint64_t commHash = 0;
  int nranks = 0;
  std::vector<RankReport> ranks;  // one per rank, index = rank
  int64_t timeoutNs = 0;          // how long a call must wait before it counts as stuck
};

struct Finding {
  enum class Kind {
    kMismatch,
    kNotCalled,
    kUnreachable,
    kKernelNotStarted,
    kKernelNotCompleted,
    kKernelsStuck,
    kLaunchFailed,
    kP2pWait,
  };
  Kind kind = Kind::kMismatch;
  uint64_t seq = 0;
  std::vector<int> ranks;  // the ranks at fault
  // There is evidence that a call cannot complete. Only blocking findings make a verdict; the
  // others (a peer that went away while nothing waits for it) are context.
  bool blocking = false;
  std::string text;

  // The same fault seen again (ages change, this does not).
  std::string key() const;
};

std::vector<Finding> analyzeHang(const CommReport& report);
bool anyBlocking(const std::vector<Finding>& findings);

// "0-2,4-7"
std::string rankRangesText(std::vector<int> ranks);
// "rank 3" / "ranks 0-2,4-7"
std::string ranksText(const std::vector<int>& ranks);
// "AllReduce(1024 x float, sum)"
std::string callArgumentsText(const TraceCall& call);
// "AllReduce seq 1842 (64 MiB bfloat16 sum)": the size is the whole buffer, as NCCL tools report.
std::string callWithSizeText(const TraceCall& call, uint64_t seq, int nranks);
// "64 MiB", "1.5 KiB", "8 B" (base/size_text.h's formatBytes)
std::string bytesText(uint64_t bytes);

}  // namespace flashccl
