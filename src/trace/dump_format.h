// The flight-recorder dump: what one process writes (on a verdict, on the dump signal, when a
// communicator is aborted) and `flashccl trace` reads back. JSON; field names follow PyTorch's
// Flight Recorder where they mean the same thing (docs/trace.md documents every field). Call
// metadata only: never tensor contents, never the side channel's tokens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/progress_snapshot.h"
#include "trace/trace_endpoint.h"

namespace flashccl {

constexpr int kDumpFormatVersion = 1;

struct DumpedComm {
  ProgressSnapshot snapshot;
  std::vector<TraceEndpoint> peers;  // who every rank is (host, pid, GPU, address); no tokens
};

struct TraceDump {
  std::string reason;  // "verdict", "signal", "abort"
  std::string host;
  int pid = 0;
  int64_t dumpWallNs = 0;
  double hangTimeoutSeconds = 0;
  std::vector<std::string> verdict;  // the verdict lines printed with this dump, if any
  std::vector<DumpedComm> comms;
};

std::string dumpToJson(const TraceDump& dump);
// False, with the reason, for text that is not a dump of a version this build reads.
bool dumpFromJson(const std::string& text, TraceDump* dump, std::string* error);

}  // namespace flashccl
