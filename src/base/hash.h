// The project's two hashes. FNV-1a where bytes are hashed once (set-up fingerprints, host
// identity); the splitmix64 finalizer where a few words are mixed on the hot path (a chain of
// three multiplies instead of one per byte).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace flashccl {

constexpr uint64_t kFnvOffset = 1469598103934665603ull;

inline uint64_t fnv1a(uint64_t hash, const void* data, size_t size) {
  const unsigned char* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 1099511628211ull;
  }
  return hash;
}

// Includes the terminating zero, so "ab"+"c" and "a"+"bc" hash differently.
inline uint64_t fnv1a(uint64_t hash, const std::string& text) { return fnv1a(hash, text.c_str(), text.size() + 1); }

template <typename T>
inline uint64_t fnv1aValue(uint64_t hash, const T& value) {
  return fnv1a(hash, &value, sizeof(value));
}

inline uint64_t mix64(uint64_t h) {
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace flashccl
