#include "transfer_pattern.h"

#include <cstring>

namespace softbond_test {
namespace {

inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t word(uint64_t key, uint64_t index) { return mix(key ^ (index * 0x9e3779b97f4a7c15ULL)); }

}  // namespace

void fillPattern(void* buffer, size_t bytes, uint64_t seed, uint64_t message) {
  const uint64_t key = mix(seed * 1000003 + message);
  auto* out = static_cast<unsigned char*>(buffer);
  size_t words = bytes / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w = word(key, i);
    memcpy(out + 8 * i, &w, 8);
  }
  uint64_t tail = word(key, words);
  memcpy(out + 8 * words, &tail, bytes % 8);
}

int64_t firstMismatch(const void* buffer, size_t bytes, uint64_t seed, uint64_t message) {
  const uint64_t key = mix(seed * 1000003 + message);
  auto* in = static_cast<const unsigned char*>(buffer);
  size_t words = bytes / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w = word(key, i), got;
    memcpy(&got, in + 8 * i, 8);
    if (got != w) {
      for (size_t b = 0; b < 8; ++b)
        if (in[8 * i + b] != reinterpret_cast<const unsigned char*>(&w)[b]) return static_cast<int64_t>(8 * i + b);
    }
  }
  uint64_t tail = word(key, words);
  for (size_t b = 0; b < bytes % 8; ++b)
    if (in[8 * words + b] != reinterpret_cast<const unsigned char*>(&tail)[b]) return static_cast<int64_t>(8 * words + b);
  return -1;
}

}  // namespace softbond_test
