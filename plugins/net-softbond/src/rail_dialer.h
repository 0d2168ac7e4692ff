// Opening one rail from the connecting side: its control socket and data sockets, each started
// non-blocking and greeted with a Hello. Used by connect() (NCCL's thread, retried until done) and
// by a send connection re-opening a failed rail (its progress thread). Never blocks.
#pragma once

#include <string>
#include <vector>

#include "tcp_socket.h"
#include "wire_format.h"

namespace flashccl::softbond {

class RailDialer {
 public:
  enum class Status { kIdle, kInProgress, kDone, kFailed };

  // Starts `hello.laneCount` connections from `local` to `remote`, giving up at `deadlineMs`.
  void start(const SockAddr& local, const SockAddr& remote, const Hello& hello, int64_t deadlineMs);
  Status advance(int64_t nowMs);
  Status status() const { return status_; }
  const std::string& error() const { return error_; }
  // The connected sockets, lane 0 (control) first. Leaves the dialer idle.
  std::vector<Fd> takeSockets();

 private:
  struct Lane {
    Fd fd;
    bool connected = false;
    uint8_t hello[kHelloBytes] = {};
    size_t sent = 0;
  };
  void fail(const std::string& why);

  std::vector<Lane> lanes_;
  Status status_ = Status::kIdle;
  int64_t deadlineMs_ = 0;
  std::string error_;
  SockAddr remote_;
};

}  // namespace flashccl::softbond
