#include "receive_window.h"

#include <algorithm>

namespace flashccl::softbond {

ReceiveWindow::Posted* ReceiveWindow::find(uint64_t index) {
  if (index < firstIndex_ || index >= firstIndex_ + posted_.size()) return nullptr;
  return &posted_[index - firstIndex_];
}

const ReceiveWindow::Posted* ReceiveWindow::find(uint64_t index) const {
  return const_cast<ReceiveWindow*>(this)->find(index);
}

ReceiveWindow::Posted& ReceiveWindow::post(Request* request, char* data, uint64_t capacity) {
  Posted message;
  message.index = nextIndex_++;
  message.request = request;
  message.data = data;
  message.capacity = capacity;
  posted_.push_back(std::move(message));
  return posted_.back();
}

Placement ReceiveWindow::locate(const ChunkHeader& header, char** destination) {
  if (header.message < firstIndex_) return Placement::kDiscard;  // a copy of a delivered message
  Posted* message = find(header.message);
  if (!message) return Placement::kReject;  // no CTS was sent for it
  if (header.total > message->capacity) return Placement::kReject;
  if (message->total >= 0 && header.total != static_cast<uint64_t>(message->total)) return Placement::kReject;
  const uint64_t chunks = chunkCount(header.total, chunkBytes_);
  if (chunks > kMaxChunksPerMessage || header.offset % chunkBytes_ != 0) return Placement::kReject;
  const uint64_t chunk = header.offset / chunkBytes_;
  if (chunk >= chunks) return Placement::kReject;
  const uint64_t expected = header.total == 0 ? 0 : std::min<uint64_t>(chunkBytes_, header.total - header.offset);
  if (header.length != expected) return Placement::kReject;
  if (message->total < 0) {
    // Sized only now that the total is known to fit the posted buffer: bounded by NCCL's buffer.
    message->total = static_cast<int64_t>(header.total);
    message->chunks = static_cast<uint32_t>(chunks);
    message->got.assign(chunks, false);
  }
  if (!message->request || message->got[chunk]) return Placement::kDiscard;
  *destination = message->data + header.offset;
  return Placement::kPlace;
}

bool ReceiveWindow::stillWanted(const ChunkHeader& header) const {
  const Posted* message = find(header.message);
  return message && message->request && message->total >= 0 && !message->got[header.offset / chunkBytes_];
}

Request* ReceiveWindow::markPlaced(const ChunkHeader& header, uint64_t* bytes) {
  Posted* message = find(header.message);
  if (!message || !message->request || message->total < 0) return nullptr;
  const uint64_t chunk = header.offset / chunkBytes_;
  if (message->got[chunk]) return nullptr;
  message->got[chunk] = true;
  if (++message->received < message->chunks) return nullptr;
  Request* done = message->request;
  *bytes = static_cast<uint64_t>(message->total);
  message->request = nullptr;
  while (!posted_.empty() && !posted_.front().request) {
    posted_.pop_front();
    ++firstIndex_;
  }
  return done;
}

bool ReceiveWindow::pending() const {
  return std::any_of(posted_.begin(), posted_.end(), [](const Posted& m) { return m.request != nullptr; });
}

std::vector<Request*> ReceiveWindow::abandon() {
  std::vector<Request*> requests;
  for (Posted& message : posted_)
    if (message.request) requests.push_back(message.request);
  posted_.clear();
  firstIndex_ = nextIndex_;
  return requests;
}

}  // namespace flashccl::softbond
