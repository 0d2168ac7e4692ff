// What `flashccl trace` prints: per communicator, the verdict (the same rules as the live
// watchdog, verdict.h) and a timeline of its last calls with each rank's state.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "dump_merge.h"

namespace flashccl {

struct TimelineRow {
  uint64_t seq = 0;
  std::string call;                // "AllReduce(1024 x float, sum)", as the lowest rank called it
  std::vector<std::string> cells;  // per rank: C S E ? G (state), '.' not called, '!' another call
  std::vector<std::string> states; // per rank: the state's name, "" when not called
};

struct CommAnalysis {
  const MergedComm* comm = nullptr;
  std::vector<Finding> findings;
  std::vector<TimelineRow> timeline;
};

// The last `lastCalls` collective sequence numbers any rank of `comm` recorded.
std::vector<TimelineRow> timelineOf(const MergedComm& comm, size_t lastCalls);

std::vector<CommAnalysis> analyzeDumps(const MergedDumps& dumps, int64_t timeoutNs, size_t lastCalls);

void printTextReport(const MergedDumps& dumps, const std::vector<CommAnalysis>& analyses,
                     std::ostream& out);
std::string jsonReport(const MergedDumps& dumps, const std::vector<CommAnalysis>& analyses);

}  // namespace flashccl
