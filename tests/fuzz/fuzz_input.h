// Reading a fuzzer's bytes as a sequence of choices and pieces: every read is bounded by what
// is left, and an exhausted input reads as zeros, so a harness never reads past its input.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace flashccl::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  size_t left() const { return size_ - at_; }
  bool empty() const { return at_ == size_; }
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  uint32_t u32() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= static_cast<uint32_t>(byte()) << (8 * i);
    return value;
  }
  uint64_t u64() { return static_cast<uint64_t>(u32()) | static_cast<uint64_t>(u32()) << 32; }
  // Up to `n` bytes (fewer at the end), as a pointer into the input.
  const uint8_t* take(size_t n, size_t* got) {
    *got = std::min(n, left());
    const uint8_t* piece = data_ + at_;
    at_ += *got;
    return piece;
  }
  // Exactly `n` bytes into `out`, zero-filled past the end of the input.
  void fill(void* out, size_t n) {
    size_t got = 0;
    const uint8_t* piece = take(n, &got);
    std::memset(out, 0, n);
    if (got) std::memcpy(out, piece, got);
  }
  std::string rest() {
    size_t got = 0;
    const uint8_t* piece = take(left(), &got);
    return std::string(reinterpret_cast<const char*>(piece), got);
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

}  // namespace flashccl::fuzz
