// The receives a connection has posted and not yet completed, and the rules that decide where an
// arriving chunk goes: into its posted buffer, nowhere (a copy already placed), or nowhere with
// the rail failed (it fits no receive this side announced). Every field of a chunk header is
// checked here before it is used as an offset or to size anything.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "data_path.h"
#include "request.h"
#include "wire_format.h"

namespace flashccl::softbond {

class ReceiveWindow {
 public:
  struct Posted {
    uint64_t index = 0;
    Request* request = nullptr;  // NULL once complete
    char* data = nullptr;
    uint64_t capacity = 0;
    int64_t total = -1;          // known from the first chunk
    uint32_t chunks = 0;
    uint32_t received = 0;
    std::vector<bool> got;
    int ctsRail = -1;            // rail the CTS went by; -1: still to send
  };

  explicit ReceiveWindow(size_t chunkBytes) : chunkBytes_(chunkBytes) {}

  Posted& post(Request* request, char* data, uint64_t capacity);
  Placement locate(const ChunkHeader& header, char** destination);
  bool stillWanted(const ChunkHeader& header) const;
  // Records a chunk placed in full. Returns the request it completed, if any (its message size in
  // *bytes); the completed receive leaves the window.
  Request* markPlaced(const ChunkHeader& header, uint64_t* bytes);
  uint32_t chunkIndex(const ChunkHeader& header) const {
    return static_cast<uint32_t>(header.offset / chunkBytes_);
  }

  std::deque<Posted>& posted() { return posted_; }
  bool pending() const;
  // Every incomplete request, leaving the window empty.
  std::vector<Request*> abandon();

 private:
  Posted* find(uint64_t index);
  const Posted* find(uint64_t index) const;

  const uint64_t chunkBytes_;
  std::deque<Posted> posted_;  // posted_[i].index == firstIndex_ + i
  uint64_t firstIndex_ = 0;
  uint64_t nextIndex_ = 0;
};

}  // namespace flashccl::softbond
