#include "trace/side_channel.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "base/log.h"
#include "trace/refusal_log.h"
#include "trace/trace_clock.h"

namespace flashccl {

namespace {

constexpr size_t kQueryFrameBytes = kFrameHeaderBytes + kQueryBodyBytes;

std::string peerText(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (addr.ss_family == AF_INET) {
    const sockaddr_in* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
    port = ntohs(in->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  const sockaddr_in6* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
  inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
  port = ntohs(in6->sin6_port);
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

// One accepted connection: it may send one query frame, then gets one reply, then is closed.
struct Connection {
  int fd = -1;
  std::string peer;
  uint8_t in[kQueryFrameBytes] = {};
  size_t received = 0;
  std::string out;  // the reply, once the query was answered
  size_t sent = 0;
  int64_t deadlineNs = 0;
};

}  // namespace

struct SideChannelServer::Impl {
  int listenFd = -1;
  int wakeRead = -1;
  int wakeWrite = -1;
  sockaddr_storage bound = {};
  ProgressAnswerer* answerer = nullptr;
  SideChannelLimits limits;
  RefusalLog refusals;
  std::atomic<bool> stopping{false};
  std::thread thread;
  std::vector<Connection> connections;

  explicit Impl(const SideChannelLimits& l) : limits(l), refusals(l.refusalLinesPerMinute) {}

  void closeAll() {
    for (Connection& c : connections) close(c.fd);
    connections.clear();
    for (int* fd : {&listenFd, &wakeRead, &wakeWrite}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
  }

  void refuse(Connection& c, const std::string& why) {
    refusals.refuse("trace side channel: refused " + c.peer + ": " + why);
    close(c.fd);
    c.fd = -1;
  }

  void acceptNew() {
    for (;;) {
      sockaddr_storage peer;
      socklen_t length = sizeof(peer);
      const int fd = accept4(listenFd, reinterpret_cast<sockaddr*>(&peer), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN: drained; anything else: try again at the next poll
      Connection c;
      c.fd = fd;
      c.peer = peerText(peer);
      c.deadlineNs = monotonicNs() + static_cast<int64_t>(limits.requestDeadlineMs) * 1000000;
      if (static_cast<int>(connections.size()) >= limits.maxConnections) {
        refuse(c, "too many connections open (" + std::to_string(limits.maxConnections) + ")");
        continue;
      }
      connections.push_back(c);
    }
  }

  // Reads what has arrived; answers once the whole query is there.
  void readFrom(Connection& c) {
    while (c.received < kQueryFrameBytes) {
      const ssize_t got = recv(c.fd, c.in + c.received, kQueryFrameBytes - c.received, 0);
      if (got > 0) {
        c.received += static_cast<size_t>(got);
        if (c.received >= kFrameHeaderBytes && c.received - got < kFrameHeaderBytes) {
          FrameHeader header;
          decodeHeader(c.in, &header);
          std::string problem = headerProblem(header, FrameType::kProgressQuery, kQueryBodyBytes);
          if (problem.empty() && header.length != kQueryBodyBytes) {
            problem = "announced " + std::to_string(header.length) + " bytes, a query has " +
                      std::to_string(kQueryBodyBytes);
          }
          if (!problem.empty()) return refuse(c, problem);
        }
        continue;
      }
      if (got == 0) {
        return refuse(c, c.received == 0 ? "closed without sending a query (a port scan?)"
                                         : "truncated frame: " + std::to_string(c.received) +
                                               " of " + std::to_string(kQueryFrameBytes) + " bytes");
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      return refuse(c, std::string("receive failed: ") + std::strerror(errno));
    }
    ProgressQuery query;
    if (!decodeQueryBody(c.in + kFrameHeaderBytes, kQueryBodyBytes, &query)) {
      return refuse(c, "malformed query");
    }
    std::string body;
    if (!answerer->answer(query, &body)) {
      return refuse(c, "wrong token (no communicator here has it)");
    }
    FrameHeader header;
    header.type = static_cast<uint16_t>(FrameType::kProgressReply);
    header.length = static_cast<uint32_t>(body.size());
    c.out = encodeHeader(header) + body;
    writeTo(c);
  }

  void writeTo(Connection& c) {
    while (c.sent < c.out.size()) {
      const ssize_t put = send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
      if (put > 0) {
        c.sent += static_cast<size_t>(put);
        continue;
      }
      if (put < 0 && errno == EINTR) continue;
      if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      close(c.fd);  // the asker went away: nothing to say about it
      c.fd = -1;
      return;
    }
    close(c.fd);
    c.fd = -1;
  }

  void run() {
    std::vector<pollfd> fds;
    while (!stopping.load(std::memory_order_acquire)) {
      fds.clear();
      fds.push_back({wakeRead, POLLIN, 0});
      fds.push_back({listenFd, POLLIN, 0});
      int64_t nearest = monotonicNs() + 1000000000;
      for (const Connection& c : connections) {
        fds.push_back({c.fd, static_cast<short>(c.out.empty() ? POLLIN : POLLOUT), 0});
        if (c.deadlineNs < nearest) nearest = c.deadlineNs;
      }
      const int64_t waitMs = (nearest - monotonicNs()) / 1000000 + 1;
      const int ready = poll(fds.data(), fds.size(), waitMs < 0 ? 0 : static_cast<int>(waitMs));
      if (ready < 0 && errno != EINTR) break;
      if (fds[0].revents) {
        char drain[64];
        while (read(wakeRead, drain, sizeof(drain)) > 0) {
        }
      }
      // Connections first (their indices match fds), then new ones.
      for (size_t i = 0; i < connections.size(); ++i) {
        Connection& c = connections[i];
        const short events = fds[i + 2].revents;
        if (events == 0) continue;
        if (!c.out.empty()) {
          writeTo(c);
        } else {
          readFrom(c);
        }
      }
      const int64_t now = monotonicNs();
      for (Connection& c : connections) {
        if (c.fd < 0 || now < c.deadlineNs) continue;
        if (c.out.empty()) {
          refuse(c, "too slow: " + std::to_string(c.received) + " of " +
                        std::to_string(kQueryFrameBytes) + " bytes in " +
                        std::to_string(limits.requestDeadlineMs) + " ms");
        } else {
          close(c.fd);  // an asker that does not take its reply
          c.fd = -1;
        }
      }
      std::vector<Connection> open;
      open.reserve(connections.size());
      for (Connection& c : connections) {
        if (c.fd >= 0) open.push_back(c);
      }
      connections.swap(open);
      if (fds[1].revents) acceptNew();
      refusals.flushSuppressed();
    }
  }
};

SideChannelServer::SideChannelServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<SideChannelServer> SideChannelServer::start(const NetInterface& where,
                                                            ProgressAnswerer* answerer,
                                                            const SideChannelLimits& limits,
                                                            std::string* error) {
  auto impl = std::make_unique<Impl>(limits);
  impl->answerer = answerer;
  const int family = where.family();
  impl->listenFd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (impl->listenFd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return nullptr;
  }
  sockaddr_storage addr = where.address;
  socklen_t length = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  if (family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&addr)->sin_port = 0;
  } else {
    reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port = 0;
  }
  int pipeFds[2];
  if (bind(impl->listenFd, reinterpret_cast<sockaddr*>(&addr), length) != 0 ||
      listen(impl->listenFd, 64) != 0 ||
      getsockname(impl->listenFd, reinterpret_cast<sockaddr*>(&impl->bound), &length) != 0) {
    *error = "cannot listen on " + interfaceText(where) + ": " + std::strerror(errno);
    impl->closeAll();
    return nullptr;
  }
  if (pipe2(pipeFds, O_NONBLOCK | O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    impl->closeAll();
    return nullptr;
  }
  impl->wakeRead = pipeFds[0];
  impl->wakeWrite = pipeFds[1];
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<SideChannelServer>(new SideChannelServer(std::move(impl)));
}

SideChannelServer::~SideChannelServer() {
  if (!impl_) return;
  impl_->stopping.store(true, std::memory_order_release);
  const char wake = 'x';
  if (write(impl_->wakeWrite, &wake, 1) < 0) {
    // The pipe is full: the thread is awake already.
  }
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->closeAll();
}

void SideChannelServer::describe(TraceEndpoint* endpoint) const {
  setEndpointAddress(endpoint, reinterpret_cast<const sockaddr*>(&impl_->bound));
}

void SideChannelServer::abandonAfterFork() {
  if (!impl_) return;
  // Only the three descriptors: the connection list may have been half-updated by the parent's
  // server thread at the moment of the fork (accepted sockets are close-on-exec anyway).
  for (int fd : {impl_->listenFd, impl_->wakeRead, impl_->wakeWrite}) {
    if (fd >= 0) close(fd);
  }
  // The std::thread names a thread of the parent: it must never be joined or destroyed here.
  impl_.release();
}

}  // namespace flashccl
