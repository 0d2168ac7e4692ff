// One slot written by a single thread and read by any number of others without a lock: a
// sequence lock. The writer never waits; a reader that overlaps a write retries, and gives up
// (returns false) rather than wait for a writer that keeps rewriting the slot.
//
// The payload is stored as relaxed 64-bit atomics, so concurrent reads are not data races in the
// C++ memory model (on x86 these are plain moves: the writer pays nothing for them).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace flashccl {

template <typename T>
class SeqlockSlot {
  static_assert(std::is_trivially_copyable<T>::value, "the payload is copied word by word");
  static_assert(sizeof(T) % sizeof(uint64_t) == 0, "the payload is a whole number of words");
  static constexpr size_t kWords = sizeof(T) / sizeof(uint64_t);

 public:
  // Only ever called by the slot's one writer thread.
  void write(const T& value) {
    uint64_t words[kWords];
    std::memcpy(words, &value, sizeof(T));
    const uint64_t version = version_.load(std::memory_order_relaxed);
    version_.store(version + 1, std::memory_order_relaxed);  // odd: a write is in progress
    std::atomic_thread_fence(std::memory_order_release);
    for (size_t i = 0; i < kWords; ++i) words_[i].store(words[i], std::memory_order_relaxed);
    version_.store(version + 2, std::memory_order_release);
  }

  // Any thread. False when the slot was never written or every attempt overlapped a write.
  bool read(T* out, int attempts = 64) const {
    uint64_t words[kWords];
    for (int attempt = 0; attempt < attempts; ++attempt) {
      const uint64_t before = version_.load(std::memory_order_acquire);
      if (before == 0) return false;
      if (before & 1) continue;
      for (size_t i = 0; i < kWords; ++i) words[i] = words_[i].load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (version_.load(std::memory_order_relaxed) == before) {
        std::memcpy(out, words, sizeof(T));
        return true;
      }
    }
    return false;
  }

 private:
  std::atomic<uint64_t> version_{0};
  std::atomic<uint64_t> words_[kWords] = {};
};

}  // namespace flashccl
