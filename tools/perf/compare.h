// Host side of the correctness check: which comparison rule applies, comparing two buffers, hashing a
// buffer, and the cross-rank consistency verdict. The GPU runs the same element rules
// (element_codec.h) in perf_kernels.cu; these host versions are what the unit tests drive with
// planted mismatches, and what the tool uses to describe a mismatch it found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "element_codec.h"
#include "perf_types.h"

namespace flashccl {
namespace perf {

// Relative tolerance per datatype, before scaling by the rank count (docs/perf.md has the table):
// float 1e-5, double 1e-12, half and bfloat16 1e-2, f8e4m3 0.13, f8e5m2 0.26 (about one unit in the
// last place of each format), 0 for integers.
double baseRelativeTolerance(DataType type);

// The rule for comparing flashccl's output with NCCL's for one call:
//  - integers: bitwise, always (integer reductions are exact in any order);
//  - AllGather: bitwise, always (it moves data, it computes nothing);
//  - 2 ranks: bitwise (a+b == b+a in IEEE arithmetic, so any correct algorithm matches NCCL bit for
//    bit, including avg and prod);
//  - otherwise: |nccl - flashccl| <= tol * (nranks - 1) * max(|nccl|, |flashccl|) + floor, where the
//    (nranks - 1) accounts for one rounding per reduction step in a different order.
ComparePolicy comparePolicy(Collective coll, DataType type, ReduceOp op, int nranks);

// "bitwise" or "relative 2.0e-05".
std::string describePolicy(const ComparePolicy& policy);

struct CompareOutcome {
  uint64_t mismatches = 0;
  uint64_t firstIndex = UINT64_MAX;  // UINT64_MAX when none
};

// expected: NCCL's output; actual: flashccl's. Both hold `count` elements of `type`.
CompareOutcome compareBuffers(DataType type, const ComparePolicy& policy, const void* expected,
                              const void* actual, size_t count);

uint64_t hashBuffer(DataType type, const void* data, size_t count);

// Ranks whose output hash differs from rank 0's (empty when every rank agrees).
std::vector<int> ranksDifferingFromFirst(const std::vector<uint64_t>& hashes);

// One line describing element `index` of a mismatch: "index 17: NCCL 3.5 (0x40600000), flashccl nan
// (0xffffffff)".
std::string describeMismatch(DataType type, uint64_t index, uint64_t expectedBits,
                             uint64_t actualBits);

}  // namespace perf
}  // namespace flashccl
