#include "acceptor.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>

#include "clock.h"
#include "log.h"

namespace flashccl::softbond {

bool sameToken(const uint8_t a[kTokenBytes], const uint8_t b[kTokenBytes]) {
  uint8_t difference = 0;
  for (size_t i = 0; i < kTokenBytes; ++i) difference |= a[i] ^ b[i];
  return difference == 0;
}

void SocketInbox::push(AcceptedSocket socket) {
  std::lock_guard<std::mutex> lock(mutex_);
  sockets_.push_back(std::move(socket));
  if (wakeFd_ >= 0) {
    uint64_t one = 1;
    (void)!write(wakeFd_, &one, sizeof(one));
  }
}

std::vector<AcceptedSocket> SocketInbox::takeAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(sockets_, {});
}

void SocketInbox::setWakeFd(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  wakeFd_ = fd;
}

Acceptor& Acceptor::instance() {
  // Never destroyed: its thread runs until the process ends (the library is never unloaded,
  // see -z nodelete in CMakeLists.txt).
  static Acceptor* acceptor = new Acceptor();
  return *acceptor;
}

Acceptor::Acceptor() : wakeFd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  thread_ = std::thread([this] { run(); });
  thread_.detach();
}

void Acceptor::wake() {
  uint64_t one = 1;
  (void)!write(wakeFd_.get(), &one, sizeof(one));
}

ncclResult_t Acceptor::railListener(int bond, int rail, const SockAddr& local, SockAddr* bound) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = listeners_.find({bond, rail});
  if (found == listeners_.end()) {
    Listener listener;
    ncclResult_t result = listenOn(local, &listener.fd, &listener.bound);
    if (result != ncclSuccess) return result;
    found = listeners_.emplace(std::make_pair(bond, rail), std::move(listener)).first;
    wake();
  }
  *bound = found->second.bound;
  return ncclSuccess;
}

void Acceptor::addEndpoint(uint64_t listenId, const uint8_t token[kTokenBytes],
                           const std::shared_ptr<SocketInbox>& inbox) {
  std::lock_guard<std::mutex> lock(mutex_);
  Endpoint& endpoint = endpoints_[listenId];
  std::copy(token, token + kTokenBytes, endpoint.token);
  endpoint.inbox = inbox;
}

void Acceptor::claimConnection(uint64_t listenId, uint64_t connId, const std::shared_ptr<SocketInbox>& inbox) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = endpoints_.find(listenId);
  if (found != endpoints_.end()) found->second.connections[connId] = inbox;
}

void Acceptor::route(AcceptedSocket socket) {
  std::shared_ptr<SocketInbox> target;
  const char* why = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Forget endpoints whose listen comm and connections are all gone.
    for (auto it = endpoints_.begin(); it != endpoints_.end();) {
      Endpoint& endpoint = it->second;
      for (auto c = endpoint.connections.begin(); c != endpoint.connections.end();)
        c = c->second.expired() ? endpoint.connections.erase(c) : std::next(c);
      it = endpoint.inbox.expired() && endpoint.connections.empty() ? endpoints_.erase(it) : std::next(it);
    }
    auto found = endpoints_.find(socket.hello.listenId);
    if (found == endpoints_.end() || !sameToken(found->second.token, socket.hello.token)) {
      why = "unknown listen endpoint or wrong token";
    } else {
      auto connection = found->second.connections.find(socket.hello.connId);
      target = connection != found->second.connections.end() ? connection->second.lock() : nullptr;
      if (!target) target = found->second.inbox.lock();
      if (!target) why = "listen endpoint closed";
    }
  }
  if (!target) {
    SB_INFO("closed a connection from %s: %s", socket.peer.str().c_str(), why);
    return;
  }
  target->push(std::move(socket));
}

void Acceptor::acceptFrom(int listenFd, int64_t nowMs) {
  for (;;) {
    Pending pending;
    IoStatus status = acceptOne(listenFd, &pending.fd, &pending.peer);
    if (status != IoStatus::kProgress) return;
    pending.deadlineMs = nowMs + kHelloDeadlineMs;
    if (pending_.size() >= kMaxPending) {
      SB_INFO("too many connections without a hello; closing the one from %s", pending_.front().peer.str().c_str());
      pending_.erase(pending_.begin());
    }
    pending_.push_back(std::move(pending));
  }
}

void Acceptor::advance(Pending* pending) {
  size_t got = 0;
  int error = 0;
  IoStatus status = readSome(pending->fd.get(), pending->bytes + pending->got, kHelloBytes - pending->got, &got, &error);
  if (status == IoStatus::kWouldBlock) return;
  if (status != IoStatus::kProgress) {
    pending->fd.reset();  // closed before saying hello: nothing to route
    return;
  }
  pending->got += got;
  if (pending->got < kHelloBytes) return;
  AcceptedSocket socket;
  const char* why = nullptr;
  if (!decodeHello(pending->bytes, &socket.hello, &why)) {
    SB_INFO("closed a connection from %s: %s", pending->peer.str().c_str(), why);
    pending->fd.reset();
    return;
  }
  tuneConnectedSocket(pending->fd.get());
  socket.fd = std::move(pending->fd);
  socket.peer = pending->peer;
  route(std::move(socket));
}

void Acceptor::run() {
  std::vector<pollfd> fds;
  std::vector<int> listenFds;
  for (;;) {
    fds.clear();
    listenFds.clear();
    fds.push_back({wakeFd_.get(), POLLIN, 0});
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& [key, listener] : listeners_) listenFds.push_back(listener.fd.get());
    }
    for (int fd : listenFds) fds.push_back({fd, POLLIN, 0});
    for (Pending& pending : pending_) fds.push_back({pending.fd.get(), POLLIN, 0});
    int timeoutMs = pending_.empty() ? -1 : 250;
    if (poll(fds.data(), fds.size(), timeoutMs) < 0) continue;
    int64_t nowMs = monotonicMs();
    if (fds[0].revents) {
      uint64_t drained;
      (void)!read(wakeFd_.get(), &drained, sizeof(drained));
    }
    size_t pendingBefore = pending_.size();
    for (size_t i = 0; i < pendingBefore; ++i)
      if (fds[1 + listenFds.size() + i].revents) advance(&pending_[i]);
    for (size_t i = 0; i < listenFds.size(); ++i)
      if (fds[1 + i].revents) acceptFrom(listenFds[i], nowMs);
    for (Pending& pending : pending_) {
      if (pending.fd.valid() && nowMs > pending.deadlineMs) {
        SB_INFO("closed a connection from %s: no hello within %lld ms", pending.peer.str().c_str(),
                (long long)kHelloDeadlineMs);
        pending.fd.reset();
      }
    }
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [](const Pending& p) { return !p.fd.valid(); }),
                   pending_.end());
  }
}

}  // namespace flashccl::softbond
