#include "trace/side_channel_client.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trace/trace_clock.h"

namespace flashccl {

namespace {

enum class Phase { kWaiting, kConnecting, kSending, kReceiving, kDone };

struct Exchange {
  Phase phase = Phase::kWaiting;
  int fd = -1;
  std::string out;
  size_t sent = 0;
  std::string in;
  size_t want = kFrameHeaderBytes;  // grows to header + body once the header is read
};

void finish(Exchange& x, QueryOutcome& outcome, QueryOutcome::Kind kind, const std::string& detail) {
  outcome.kind = kind;
  outcome.detail = detail;
  if (x.fd >= 0) close(x.fd);
  x.fd = -1;
  x.phase = Phase::kDone;
}

void start(Exchange& x, const PeerQuery& query, QueryOutcome& outcome) {
  sockaddr_storage addr;
  socklen_t length = 0;
  if (!endpointSockaddr(query.endpoint, &addr, &length)) {
    return finish(x, outcome, QueryOutcome::Kind::kNoEndpoint, "it has no side channel");
  }
  x.fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (x.fd < 0) {
    return finish(x, outcome, QueryOutcome::Kind::kError,
                  std::string("socket: ") + std::strerror(errno));
  }
  x.out = encodeQuery(query.query);
  if (connect(x.fd, reinterpret_cast<sockaddr*>(&addr), length) == 0) {
    x.phase = Phase::kSending;
  } else if (errno == EINPROGRESS) {
    x.phase = Phase::kConnecting;
  } else if (errno == ECONNREFUSED) {
    finish(x, outcome, QueryOutcome::Kind::kRefused, "process gone: connection refused");
  } else {
    finish(x, outcome, QueryOutcome::Kind::kError, std::string("connect: ") + std::strerror(errno));
  }
}

void progress(Exchange& x, QueryOutcome& outcome) {
  if (x.phase == Phase::kConnecting) {
    int error = 0;
    socklen_t length = sizeof(error);
    getsockopt(x.fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error == ECONNREFUSED) {
      return finish(x, outcome, QueryOutcome::Kind::kRefused, "process gone: connection refused");
    }
    if (error != 0) {
      return finish(x, outcome, QueryOutcome::Kind::kError,
                    std::string("connect: ") + std::strerror(error));
    }
    x.phase = Phase::kSending;
  }
  while (x.phase == Phase::kSending) {
    const ssize_t put = send(x.fd, x.out.data() + x.sent, x.out.size() - x.sent, MSG_NOSIGNAL);
    if (put > 0) {
      x.sent += static_cast<size_t>(put);
      if (x.sent == x.out.size()) x.phase = Phase::kReceiving;
    } else if (put < 0 && errno == EINTR) {
      continue;
    } else if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      return finish(x, outcome, QueryOutcome::Kind::kClosed, "it closed the connection");
    }
  }
  while (x.phase == Phase::kReceiving) {
    char buffer[16384];
    const size_t room = x.want - x.in.size();
    const ssize_t got = recv(x.fd, buffer, room < sizeof(buffer) ? room : sizeof(buffer), 0);
    if (got > 0) {
      const bool hadHeader = x.in.size() >= kFrameHeaderBytes;
      x.in.append(buffer, static_cast<size_t>(got));
      if (!hadHeader && x.in.size() >= kFrameHeaderBytes) {
        FrameHeader header;
        decodeHeader(reinterpret_cast<const uint8_t*>(x.in.data()), &header);
        const std::string problem =
            headerProblem(header, FrameType::kProgressReply, kMaxReplyBodyBytes);
        if (!problem.empty()) return finish(x, outcome, QueryOutcome::Kind::kBadReply, problem);
        x.want = kFrameHeaderBytes + header.length;
      }
      if (x.in.size() == x.want) {
        const uint8_t* body = reinterpret_cast<const uint8_t*>(x.in.data()) + kFrameHeaderBytes;
        std::string problem;
        if (!decodeSnapshot(body, x.want - kFrameHeaderBytes, &outcome.snapshot, &problem)) {
          return finish(x, outcome, QueryOutcome::Kind::kBadReply,
                        "malformed progress reply: " + problem);
        }
        return finish(x, outcome, QueryOutcome::Kind::kAnswered, "");
      }
    } else if (got == 0 || (got < 0 && errno == ECONNRESET)) {
      return finish(x, outcome, QueryOutcome::Kind::kClosed,
                    x.in.empty() ? "it closed the connection without answering: the "
                                   "communicator is gone there (destroyed or aborted)"
                                 : "reply cut short");
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      return finish(x, outcome, QueryOutcome::Kind::kError,
                    std::string("receive: ") + std::strerror(errno));
    }
  }
}

}  // namespace

std::vector<QueryOutcome> queryPeers(const std::vector<PeerQuery>& queries, int timeoutMs,
                                     int maxInFlight) {
  std::vector<QueryOutcome> outcomes(queries.size());
  std::vector<Exchange> exchanges(queries.size());
  const int64_t deadline = monotonicNs() + static_cast<int64_t>(timeoutMs) * 1000000;
  size_t next = 0;
  std::vector<pollfd> fds;
  std::vector<size_t> owner;
  for (;;) {
    int inFlight = 0;
    for (const Exchange& x : exchanges) {
      if (x.phase != Phase::kWaiting && x.phase != Phase::kDone) ++inFlight;
    }
    while (next < queries.size() && inFlight < maxInFlight) {
      start(exchanges[next], queries[next], outcomes[next]);
      if (exchanges[next].phase != Phase::kDone) ++inFlight;
      ++next;
    }
    fds.clear();
    owner.clear();
    for (size_t i = 0; i < exchanges.size(); ++i) {
      const Exchange& x = exchanges[i];
      if (x.phase == Phase::kWaiting || x.phase == Phase::kDone) continue;
      const short events = x.phase == Phase::kReceiving ? POLLIN : POLLOUT;
      fds.push_back({x.fd, events, 0});
      owner.push_back(i);
    }
    if (fds.empty() && next == queries.size()) break;
    const int64_t leftMs = (deadline - monotonicNs()) / 1000000;
    if (leftMs <= 0) break;
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(leftMs));
    if (ready < 0 && errno != EINTR) break;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents) progress(exchanges[owner[k]], outcomes[owner[k]]);
    }
  }
  for (size_t i = 0; i < exchanges.size(); ++i) {
    Exchange& x = exchanges[i];
    if (x.phase == Phase::kDone) continue;
    finish(x, outcomes[i], QueryOutcome::Kind::kTimeout,
           "no answer within " + std::to_string(timeoutMs) +
               " ms (host down or unreachable, or the process is stopped)");
  }
  return outcomes;
}

}  // namespace flashccl
