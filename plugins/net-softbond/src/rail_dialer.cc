#include "rail_dialer.h"

#include <poll.h>
#include <string.h>

namespace flashccl::softbond {

void RailDialer::fail(const std::string& why) {
  lanes_.clear();
  status_ = Status::kFailed;
  error_ = why;
}

void RailDialer::start(const SockAddr& local, const SockAddr& remote, const Hello& hello, int64_t deadlineMs) {
  lanes_.clear();
  lanes_.resize(hello.laneCount);
  remote_ = remote;
  deadlineMs_ = deadlineMs;
  error_.clear();
  status_ = Status::kInProgress;
  for (uint8_t lane = 0; lane < hello.laneCount; ++lane) {
    Hello laneHello = hello;
    laneHello.lane = lane;
    encodeHello(laneHello, lanes_[lane].hello);
    if (startConnect(local, remote, &lanes_[lane].fd) != ncclSuccess) {
      fail("cannot connect to " + remote.str() + ": " + strerror(errno));
      return;
    }
  }
}

RailDialer::Status RailDialer::advance(int64_t nowMs) {
  if (status_ != Status::kInProgress) return status_;
  std::vector<pollfd> fds;
  for (Lane& lane : lanes_) fds.push_back({lane.fd.get(), POLLOUT, 0});
  if (poll(fds.data(), fds.size(), 0) < 0) return status_;
  bool allSent = true;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    Lane& lane = lanes_[i];
    if (!lane.connected && fds[i].revents) {
      int error = connectResult(lane.fd.get());
      if (error != 0) {
        fail("connect to " + remote_.str() + ": " + strerror(error));
        return status_;
      }
      lane.connected = true;
      tuneConnectedSocket(lane.fd.get());
    }
    if (lane.connected && lane.sent < kHelloBytes) {
      size_t sent = 0;
      int error = 0;
      IoStatus io = writeSome(lane.fd.get(), lane.hello + lane.sent, kHelloBytes - lane.sent, &sent, &error);
      if (io == IoStatus::kError || io == IoStatus::kClosed) {
        fail("hello to " + remote_.str() + ": " + strerror(error));
        return status_;
      }
      lane.sent += sent;
    }
    allSent = allSent && lane.sent == kHelloBytes;
  }
  if (allSent) {
    status_ = Status::kDone;
  } else if (nowMs > deadlineMs_) {
    fail("no connection to " + remote_.str() + " in time");
  }
  return status_;
}

std::vector<Fd> RailDialer::takeSockets() {
  std::vector<Fd> sockets;
  for (Lane& lane : lanes_) sockets.push_back(std::move(lane.fd));
  lanes_.clear();
  status_ = Status::kIdle;
  return sockets;
}

}  // namespace flashccl::softbond
