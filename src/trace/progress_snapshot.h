// One rank's progress on one communicator, as the side channel carries it, a dump stores it and
// the verdict reads it. Times are ages (how long before the snapshot), so snapshots from hosts
// whose clocks disagree can still be compared; takenWallNs places the snapshot in time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/flight_recorder.h"

namespace flashccl {

struct CommIdentity {
  uint64_t commHash = 0;
  int rank = -1;
  int nranks = 0;
  int cudaDev = -1;
  int pid = 0;
  std::string host;
};

struct SnapshotCall {
  uint64_t recordId = 0;
  uint64_t seq = 0;
  TraceCall call;          // call.algorithm is not used here: see `algorithm`
  std::string algorithm;   // "nccl" when forwarded
  uint64_t stream = 0;
  CallState state = CallState::kUntracked;
  int64_t enqueuedAgoNs = 0;
  int64_t startedAgoNs = -1;    // -1: not seen started
  int64_t completedAgoNs = -1;  // -1: not seen completed
};

struct ProgressSnapshot {
  CommIdentity identity;
  int64_t takenWallNs = 0;
  uint64_t lastCollectiveSeq = 0;
  uint64_t lastP2pSeq = 0;
  uint64_t recorded = 0;  // calls recorded since the communicator was made
  bool deviceProgressKnown = false;
  uint64_t launchesStarted = 0;
  uint64_t launchesCompleted = 0;
  bool followsForwarded = false;
  std::vector<SnapshotCall> calls;  // oldest first

  // The newest collective entry with this sequence number, or nullptr.
  const SnapshotCall* collective(uint64_t seq) const;
  const SnapshotCall* newestCall() const { return calls.empty() ? nullptr : &calls.back(); }
};

constexpr size_t kSnapshotCalls = 256;  // what a side-channel reply carries
constexpr size_t kMaxAlgorithmNameBytes = 63;
constexpr size_t kMaxHostNameBytes = 255;

ProgressSnapshot takeSnapshot(const FlightRecorder& recorder, const CommIdentity& identity,
                              size_t maxCalls);

std::string encodeSnapshot(const ProgressSnapshot& snapshot);
// The largest communicator a decoder accepts, from a peer or from a dump file: it sizes per-rank
// tables, so a hostile or corrupt value must not ask for gigabytes.
constexpr int kMaxTraceRanks = 1 << 16;

// False, with the field that is wrong (and which call) in `error`, for bytes that are not a
// snapshot an encoder makes: every enum, count and age is checked, nothing is trusted.
bool decodeSnapshot(const uint8_t* data, size_t size, ProgressSnapshot* snapshot,
                    std::string* error);

}  // namespace flashccl
