// Non-blocking TCP sockets: an owning descriptor, addresses, and the handful of calls the rails
// need. Nothing here blocks: NCCL forbids blocking in connect/accept, and the progress threads
// multiplex many sockets with poll().
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "nccl_net_abi.h"

namespace flashccl::softbond {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release();
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

struct SockAddr {
  sockaddr_storage storage{};
  socklen_t length = 0;

  int family() const { return storage.ss_family; }
  uint16_t port() const;
  void setPort(uint16_t port);
  std::string str() const;  // "10.0.0.1:4242" / "[fe80::1]:4242"
};

// Result of one read or write attempt on a non-blocking socket.
enum class IoStatus { kProgress, kWouldBlock, kClosed, kError };

// Listening socket bound to `local` (port 0: any); *bound gets the address with its port.
ncclResult_t listenOn(const SockAddr& local, Fd* out, SockAddr* bound);
// Starts a connection from `local` (port 0) to `remote`; completes later (poll for POLLOUT and
// check connectResult()).
ncclResult_t startConnect(const SockAddr& local, const SockAddr& remote, Fd* out);
// After POLLOUT on a connecting socket: 0 if connected, else the errno.
int connectResult(int fd);
// accept4 non-blocking; kWouldBlock when nothing is pending.
IoStatus acceptOne(int listenFd, Fd* out, SockAddr* peer);
// Options every data-carrying socket gets (TCP_NODELAY; the socket is non-blocking from its creation).
void tuneConnectedSocket(int fd);

IoStatus readSome(int fd, void* buffer, size_t length, size_t* got, int* error);
IoStatus writeSome(int fd, const void* buffer, size_t length, size_t* sent, int* error);
// Gathered write of up to two pieces (a frame header and its payload) in one system call.
IoStatus writeTwo(int fd, const void* first, size_t firstLength, const void* second, size_t secondLength,
                  size_t* sent, int* error);

}  // namespace flashccl::softbond
