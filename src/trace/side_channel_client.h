// Asking peers for their progress over the side channel. Queries run in parallel on
// non-blocking sockets under one deadline, so a dead host costs the timeout once, not once per
// peer. Replies are bounded (kMaxReplyBodyBytes) and decoded with bounds checks.
#pragma once

#include <string>
#include <vector>

#include "trace/progress_snapshot.h"
#include "trace/trace_endpoint.h"
#include "trace/wire_format.h"

namespace flashccl {

struct QueryOutcome {
  enum class Kind {
    kAnswered,
    kNoEndpoint,  // the peer has no side channel
    kRefused,     // connection refused: nothing listens there any more (process gone)
    kClosed,      // it closed without answering: it does not know this communicator's token
    kTimeout,     // no answer in time: the host is down or unreachable, or the process stopped
    kBadReply,    // it answered something that is not a progress reply
    kError,       // a local error (socket, unreachable network)
  };
  Kind kind = Kind::kError;
  std::string detail;  // for the verdict: why, in words
  ProgressSnapshot snapshot;  // when kAnswered
};

struct PeerQuery {
  TraceEndpoint endpoint;
  ProgressQuery query;
};

// One outcome per query, in order. `timeoutMs` bounds the whole call; at most `maxInFlight`
// connections are open at a time.
std::vector<QueryOutcome> queryPeers(const std::vector<PeerQuery>& queries, int timeoutMs,
                                     int maxInFlight = 32);

}  // namespace flashccl
