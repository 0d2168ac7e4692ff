// The bytes the tests send: a function of (seed, message index, position), so the receiver checks
// every byte of every message without the sender having to tell it anything.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softbond_test {

void fillPattern(void* buffer, size_t bytes, uint64_t seed, uint64_t message);
// Offset of the first wrong byte, or -1 when all `bytes` are right.
int64_t firstMismatch(const void* buffer, size_t bytes, uint64_t seed, uint64_t message);

}  // namespace softbond_test
