// Element types, op names and deterministic inputs shared by the GPU checks (the gtest suite and
// the pass-through program). No gtest here: flashccl_passthrough_check is a plain program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <nccl.h>

namespace flashccl_gpu_test {

size_t typeSize(ncclDataType_t t);
const char* typeName(ncclDataType_t t);
const char* opName(ncclRedOp_t op);

// Host bytes of `count` elements of `dtype` for `rank`: never zero, small enough that sums and
// products of up to 8 ranks stay finite and exact for integers. The sequence does not depend on
// `count`, so a shorter input is a prefix of a longer one.
std::vector<char> makeInput(ncclDataType_t dtype, size_t count, int rank, uint32_t seed);

// The bytes of `value` as one element of `dtype` (rounded as the type's conversion does).
std::vector<char> valueBytes(ncclDataType_t dtype, double value);

}  // namespace flashccl_gpu_test
