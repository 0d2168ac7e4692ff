#include "control_channel.h"

#include <algorithm>
#include <cstring>

namespace flashccl::softbond {

bool ControlReader::feed(const uint8_t* data, size_t length, std::vector<ControlFrame>* frames, const char** why) {
  size_t used = 0;
  while (used < length) {
    if (!inBody_) {
      size_t take = std::min(length - used, kControlHeaderBytes - headerGot_);
      memcpy(header_ + headerGot_, data + used, take);
      headerGot_ += take;
      used += take;
      if (headerGot_ < kControlHeaderBytes) break;
      uint32_t bodyBytes = 0;
      if (!checkControlHeader(header_, &current_.type, &bodyBytes, why)) return false;
      // bodyBytes is bounded by checkControlHeader (at most kMaxControlBody) before this resize.
      current_.body.assign(bodyBytes, 0);
      bodyGot_ = 0;
      inBody_ = true;
    }
    size_t take = std::min(length - used, current_.body.size() - bodyGot_);
    if (take) memcpy(current_.body.data() + bodyGot_, data + used, take);
    bodyGot_ += take;
    used += take;
    if (bodyGot_ == current_.body.size()) {
      frames->push_back(std::move(current_));
      current_ = ControlFrame();
      inBody_ = false;
      headerGot_ = 0;
    }
  }
  return true;
}

void ControlChannel::attach(Fd fd) {
  fd_ = std::move(fd);
  out_.clear();
  outHeadSent_ = 0;
  queuedBytes_ = 0;
  reader_.reset();
}

void ControlChannel::close() { attach(Fd()); }

bool ControlChannel::queue(std::vector<uint8_t> message) {
  if (queuedBytes_ + message.size() > kMaxQueuedBytes) return false;
  queuedBytes_ += message.size();
  out_.push_back(std::move(message));
  return true;
}

IoStatus ControlChannel::flush(int* error) {
  bool progressed = false;
  while (!out_.empty()) {
    const std::vector<uint8_t>& head = out_.front();
    size_t sent = 0;
    IoStatus status = writeSome(fd_.get(), head.data() + outHeadSent_, head.size() - outHeadSent_, &sent, error);
    if (status != IoStatus::kProgress) return status == IoStatus::kWouldBlock && progressed ? IoStatus::kProgress : status;
    progressed = true;
    outHeadSent_ += sent;
    if (outHeadSent_ == head.size()) {
      queuedBytes_ -= head.size();
      out_.pop_front();
      outHeadSent_ = 0;
    }
  }
  return IoStatus::kProgress;
}

IoStatus ControlChannel::receive(std::vector<ControlFrame>* frames, int* error, const char** why) {
  uint8_t buffer[4096];
  bool progressed = false;
  // A bounded number of reads per call keeps one chatty rail from starving the others.
  for (int round = 0; round < 16; ++round) {
    size_t got = 0;
    IoStatus status = readSome(fd_.get(), buffer, sizeof(buffer), &got, error);
    if (status == IoStatus::kWouldBlock) return progressed ? IoStatus::kProgress : status;
    if (status != IoStatus::kProgress) return status;
    progressed = true;
    if (!reader_.feed(buffer, got, frames, why)) return IoStatus::kError;
    if (got < sizeof(buffer)) break;
  }
  return IoStatus::kProgress;
}

}  // namespace flashccl::softbond
