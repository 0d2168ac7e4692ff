// The side channel's frames. Every frame is a 16-byte header followed by `length` bytes of body;
// integers are little-endian. A peer's sizes are never trusted: the header's length is checked
// against the largest body its type may have before anything is read, and every body is decoded
// with a bounds-checked reader.
//
//   header: magic "FCTR" (u32) | version (u16) | type (u16) | length (u32) | reserved (u32)
//   query:  token (16 bytes) | asker's rank (i32) | seq it waits in (u64, 0: none) |
//           how long it has waited, ns (i64)
//   reply:  a progress snapshot (progress_snapshot.h)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/trace_endpoint.h"

namespace flashccl {

constexpr uint32_t kWireMagic = 0x52544346;  // "FCTR" read as little-endian bytes
constexpr uint16_t kWireVersion = 1;
constexpr size_t kFrameHeaderBytes = 16;
constexpr size_t kQueryBodyBytes = kTraceTokenBytes + 4 + 8 + 8;
constexpr size_t kMaxReplyBodyBytes = 256 * 1024;

enum class FrameType : uint16_t { kProgressQuery = 1, kProgressReply = 2 };

struct FrameHeader {
  uint32_t magic = kWireMagic;
  uint16_t version = kWireVersion;
  uint16_t type = 0;
  uint32_t length = 0;
  uint32_t reserved = 0;
};

// A rank asks a peer for its progress on one communicator. The asker says what it waits for, so
// that the peer can look into the hang too (and print the verdict where the culprit runs).
struct ProgressQuery {
  uint8_t token[kTraceTokenBytes] = {};
  int32_t askerRank = -1;
  uint64_t waitingSeq = 0;
  int64_t waitingNs = 0;
};

// Appends little-endian values to a string.
class ByteWriter {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) { fixed(v, 2); }
  void u32(uint32_t v) { fixed(v, 4); }
  void u64(uint64_t v) { fixed(v, 8); }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void bytes(const void* data, size_t size) { out_.append(static_cast<const char*>(data), size); }
  // Length-prefixed (u16), cut at `maxBytes`.
  void text(const std::string& value, size_t maxBytes);
  std::string& data() { return out_; }

 private:
  void fixed(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

// Reads what ByteWriter wrote; every read past the end fails and leaves ok() false for good.
class ByteReader {
 public:
  ByteReader(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data)), size_(size) {}
  uint8_t u8() { return static_cast<uint8_t>(fixed(1)); }
  uint16_t u16() { return static_cast<uint16_t>(fixed(2)); }
  uint32_t u32() { return static_cast<uint32_t>(fixed(4)); }
  uint64_t u64() { return fixed(8); }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  bool bytes(void* out, size_t size);
  std::string text(size_t maxBytes);
  bool ok() const { return ok_; }
  bool atEnd() const { return ok_ && offset_ == size_; }

 private:
  uint64_t fixed(int bytes);
  const uint8_t* data_;
  size_t size_;
  size_t offset_ = 0;
  bool ok_ = true;
};

std::string encodeHeader(const FrameHeader& header);
bool decodeHeader(const uint8_t bytes[kFrameHeaderBytes], FrameHeader* header);
// Why a header cannot start a frame of `expected` type with at most `maxLength` body bytes
// (empty when it can).
std::string headerProblem(const FrameHeader& header, FrameType expected, size_t maxLength);

std::string encodeQuery(const ProgressQuery& query);  // header and body
bool decodeQueryBody(const uint8_t* body, size_t size, ProgressQuery* query);

}  // namespace flashccl
