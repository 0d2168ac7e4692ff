// The process's listening sockets and the one thread that accepts on them.
//
// Each rail of each bond listens once per process. Every accepted socket must present, within a
// few seconds, a Hello whose token matches the listen endpoint it names (the 16 random bytes
// NCCL carries in the handle). Anything else -- a port scan, a stray client, garbage, a stale
// handle -- is closed on its own, without touching any other connection. Accepted sockets are
// routed by (listen id, connection id): to the connection they belong to (a reconnection, a late
// rail), or else to the listen endpoint, where accept() picks them up.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "tcp_socket.h"
#include "wire_format.h"

namespace flashccl::softbond {

struct AcceptedSocket {
  Fd fd;
  Hello hello;
  SockAddr peer;
};

// Where routed sockets wait for their owner. Thread-safe; wakes the owner through an eventfd.
class SocketInbox {
 public:
  void push(AcceptedSocket socket);
  std::vector<AcceptedSocket> takeAll();
  void setWakeFd(int fd);

 private:
  std::mutex mutex_;
  std::vector<AcceptedSocket> sockets_;
  int wakeFd_ = -1;
};

class Acceptor {
 public:
  static Acceptor& instance();

  // The listening address of (bond, rail), listening on `local` from the first call on.
  ncclResult_t railListener(int bond, int rail, const SockAddr& local, SockAddr* bound);
  void addEndpoint(uint64_t listenId, const uint8_t token[kTokenBytes], const std::shared_ptr<SocketInbox>& inbox);
  void claimConnection(uint64_t listenId, uint64_t connId, const std::shared_ptr<SocketInbox>& inbox);

  // A pending socket gets this long to present its Hello.
  static constexpr int64_t kHelloDeadlineMs = 5000;
  // Unauthenticated sockets held at once; beyond it the oldest is closed.
  static constexpr size_t kMaxPending = 256;

 private:
  struct Listener {
    Fd fd;
    SockAddr bound;
  };
  struct Pending {
    Fd fd;
    SockAddr peer;
    uint8_t bytes[kHelloBytes] = {};
    size_t got = 0;
    int64_t deadlineMs = 0;
  };
  struct Endpoint {
    uint8_t token[kTokenBytes] = {};
    std::weak_ptr<SocketInbox> inbox;
    std::map<uint64_t, std::weak_ptr<SocketInbox>> connections;
  };

  Acceptor();
  void run();
  void acceptFrom(int listenFd, int64_t nowMs);
  void advance(Pending* pending);
  void route(AcceptedSocket socket);
  void wake();

  mutable std::mutex mutex_;
  std::map<std::pair<int, int>, Listener> listeners_;
  std::map<uint64_t, Endpoint> endpoints_;
  std::vector<Pending> pending_;  // touched by the accept thread only
  Fd wakeFd_;
  std::thread thread_;
};

// Equal in time independent of where the tokens differ.
bool sameToken(const uint8_t a[kTokenBytes], const uint8_t b[kTokenBytes]);

}  // namespace flashccl::softbond
