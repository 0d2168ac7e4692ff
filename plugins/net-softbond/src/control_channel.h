// The control socket of one rail: framed control messages in (parsed incrementally, every size
// bounded before anything is allocated) and a bounded queue of messages out.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "tcp_socket.h"
#include "wire_format.h"

namespace flashccl::softbond {

class ControlReader {
 public:
  // Parses `length` bytes; complete frames are appended to *frames. False on a protocol violation
  // (the rest of the stream cannot be trusted), with *why.
  bool feed(const uint8_t* data, size_t length, std::vector<ControlFrame>* frames, const char** why);
  void reset() { headerGot_ = 0, bodyGot_ = 0, inBody_ = false; }

 private:
  uint8_t header_[kControlHeaderBytes] = {};
  size_t headerGot_ = 0;
  bool inBody_ = false;
  ControlFrame current_;
  size_t bodyGot_ = 0;
};

class ControlChannel {
 public:
  // Everything queued beyond this means the peer stopped reading: treat the rail as failed.
  static constexpr size_t kMaxQueuedBytes = 1u << 20;

  void attach(Fd fd);
  void close();
  bool open() const { return fd_.valid(); }
  int fd() const { return fd_.get(); }

  // Queues a message; false when the queue is over its bound.
  bool queue(std::vector<uint8_t> message);
  bool hasQueued() const { return !out_.empty(); }
  // Non-blocking write of what is queued / read of what arrived. kClosed and kError mean the
  // socket is done for; a protocol violation reads as kError with *why set.
  IoStatus flush(int* error);
  IoStatus receive(std::vector<ControlFrame>* frames, int* error, const char** why);

 private:
  Fd fd_;
  std::deque<std::vector<uint8_t>> out_;
  size_t outHeadSent_ = 0;
  size_t queuedBytes_ = 0;
  ControlReader reader_;
};

}  // namespace flashccl::softbond
