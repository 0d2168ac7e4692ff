#include "tcp_socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "log.h"

namespace flashccl::softbond {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

int Fd::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void Fd::reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

uint16_t SockAddr::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  return 0;
}

void SockAddr::setPort(uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port = htons(port);
}

std::string SockAddr::str() const {
  char host[INET6_ADDRSTRLEN] = "?";
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, host, sizeof(host));
    return std::string(host) + ":" + std::to_string(port());
  }
  if (family() == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr, host, sizeof(host));
    return "[" + std::string(host) + "]:" + std::to_string(port());
  }
  return "?";
}

namespace {

int newSocket(int family) {
  return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
}

}  // namespace

ncclResult_t listenOn(const SockAddr& local, Fd* out, SockAddr* bound) {
  Fd fd(newSocket(local.family()));
  if (!fd.valid()) {
    SB_WARN("socket(): %s", strerror(errno));
    return ncclSystemError;
  }
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&local.storage), local.length) != 0) {
    SB_WARN("bind(%s): %s", local.str().c_str(), strerror(errno));
    return ncclSystemError;
  }
  if (listen(fd.get(), 1024) != 0) {
    SB_WARN("listen(%s): %s", local.str().c_str(), strerror(errno));
    return ncclSystemError;
  }
  SockAddr result;
  result.length = sizeof(result.storage);
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&result.storage), &result.length);
  *bound = result;
  *out = std::move(fd);
  return ncclSuccess;
}

ncclResult_t startConnect(const SockAddr& local, const SockAddr& remote, Fd* out) {
  Fd fd(newSocket(remote.family()));
  if (!fd.valid()) {
    SB_WARN("socket(): %s", strerror(errno));
    return ncclSystemError;
  }
  // Binding the source address pins the rail: with one subnet per rail, the route follows it.
  SockAddr source = local;
  source.setPort(0);
  if (source.family() == remote.family() &&
      bind(fd.get(), reinterpret_cast<const sockaddr*>(&source.storage), source.length) != 0) {
    SB_INFO("bind(%s) before connect: %s", source.str().c_str(), strerror(errno));
    return ncclSystemError;
  }
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&remote.storage), remote.length) != 0 &&
      errno != EINPROGRESS) {
    SB_INFO("connect(%s): %s", remote.str().c_str(), strerror(errno));
    return ncclSystemError;
  }
  *out = std::move(fd);
  return ncclSuccess;
}

int connectResult(int fd) {
  int error = 0;
  socklen_t length = sizeof(error);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
  return error;
}

IoStatus acceptOne(int listenFd, Fd* out, SockAddr* peer) {
  SockAddr address;
  address.length = sizeof(address.storage);
  int fd = accept4(listenFd, reinterpret_cast<sockaddr*>(&address.storage), &address.length,
                   SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED)
      return IoStatus::kWouldBlock;
    return IoStatus::kError;
  }
  out->reset(fd);
  if (peer) *peer = address;
  return IoStatus::kProgress;
}

void tuneConnectedSocket(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

IoStatus readSome(int fd, void* buffer, size_t length, size_t* got, int* error) {
  *got = 0;
  ssize_t n = recv(fd, buffer, length, 0);
  if (n > 0) {
    *got = static_cast<size_t>(n);
    return IoStatus::kProgress;
  }
  if (n == 0) return length == 0 ? IoStatus::kProgress : IoStatus::kClosed;
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return IoStatus::kWouldBlock;
  *error = errno;
  return IoStatus::kError;
}

IoStatus writeSome(int fd, const void* buffer, size_t length, size_t* sent, int* error) {
  return writeTwo(fd, buffer, length, nullptr, 0, sent, error);
}

IoStatus writeTwo(int fd, const void* first, size_t firstLength, const void* second, size_t secondLength,
                  size_t* sent, int* error) {
  *sent = 0;
  iovec pieces[2] = {{const_cast<void*>(first), firstLength}, {const_cast<void*>(second), secondLength}};
  msghdr message{};
  message.msg_iov = pieces[0].iov_len ? pieces : pieces + 1;
  message.msg_iovlen = pieces[0].iov_len ? (secondLength ? 2 : 1) : 1;
  // MSG_NOSIGNAL: a peer that went away must give EPIPE here, not kill the process with SIGPIPE.
  ssize_t n = sendmsg(fd, &message, MSG_NOSIGNAL);
  if (n >= 0) {
    *sent = static_cast<size_t>(n);
    return IoStatus::kProgress;
  }
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return IoStatus::kWouldBlock;
  *error = errno;
  return IoStatus::kError;
}

}  // namespace flashccl::softbond
