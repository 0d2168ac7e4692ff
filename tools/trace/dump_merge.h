// `flashccl trace`'s input: every dump file under a directory (copied there from every host),
// merged into one picture per communicator: for each rank, its latest snapshot.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/dump_format.h"
#include "trace/verdict.h"

namespace flashccl {

struct MergedComm {
  uint64_t commHash = 0;
  int nranks = 0;
  std::vector<bool> dumped;                 // per rank: a dump holds it
  std::vector<ProgressSnapshot> latest;     // per rank: its newest snapshot
  std::vector<TraceEndpoint> peers;         // per rank: who it is (from any dump of the comm)
};

struct MergedDumps {
  int files = 0;                      // dump files read
  std::vector<std::string> problems;  // "path: why" for files that are not dumps
  std::vector<MergedComm> comms;      // by comm hash
  double timeoutSeconds = 0;          // the largest FLASHCCL_HANG_TIMEOUT the dumps were made with
};

// What the merged picture holds at most, over all communicators: each one is bounded by
// kMaxTraceRanks, their sum by this (several communicators of a large job, not gigabytes).
constexpr size_t kMaxMergedRanks = size_t(1) << 18;

// (path, contents) pairs -> the merged picture. Pure, for tests. A file that is not a dump, or
// a communicator over the bounds, is a line in `problems`, never a crash.
MergedDumps mergeDumps(const std::vector<std::pair<std::string, std::string>>& files);

// The dumps `paths` name: a file is read as it is, a directory gives every regular *.json under it
// (recursively). False, with why, when a path does not exist or cannot be read.
bool readDumpFiles(const std::vector<std::string>& paths, std::vector<std::pair<std::string, std::string>>* files,
                   std::string* error);

// The verdict's input for one merged communicator; a rank without a dump counts as unreachable.
CommReport offlineReport(const MergedComm& comm, int64_t timeoutNs);

}  // namespace flashccl
