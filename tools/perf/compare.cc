#include "compare.h"

#include <cfloat>
#include <cinttypes>
#include <cstdio>

namespace flashccl {
namespace perf {

double baseRelativeTolerance(DataType type) {
  switch (type) {
    case DataType::kFloat: return 1e-5;
    case DataType::kDouble: return 1e-12;
    case DataType::kHalf:
    case DataType::kBfloat16: return 1e-2;
    case DataType::kFloat8e4m3: return 0.13;
    case DataType::kFloat8e5m2: return 0.26;
    default: return 0.0;
  }
}

namespace {

// Smallest positive normal value of each floating-point type: the absolute floor of the tolerance, so
// results that should be zero but carry rounding residue are not flagged.
double smallestNormal(DataType type) {
  switch (type) {
    case DataType::kFloat: return FLT_MIN;
    case DataType::kDouble: return DBL_MIN;
    case DataType::kHalf: return 6.103515625e-05;     // 2^-14
    case DataType::kBfloat16: return FLT_MIN;         // same exponent range as float
    case DataType::kFloat8e4m3: return 0.015625;      // 2^-6
    case DataType::kFloat8e5m2: return 6.103515625e-05;  // 2^-14
    default: return 0.0;
  }
}

}  // namespace

ComparePolicy comparePolicy(Collective coll, DataType type, ReduceOp op, int nranks) {
  ComparePolicy policy;
  (void)op;  // every op of a float type gets the same rule; min and max are exact anyway
  if (isIntegerType(type) || coll == Collective::kAllGather || nranks <= 2) return policy;
  policy.bitwise = false;
  const double scale = static_cast<double>(nranks - 1);
  policy.relativeTolerance = baseRelativeTolerance(type) * scale;
  policy.absoluteTolerance = policy.relativeTolerance * smallestNormal(type);
  return policy;
}

std::string describePolicy(const ComparePolicy& policy) {
  if (policy.bitwise) return "bitwise";
  char text[64];
  std::snprintf(text, sizeof(text), "relative %.1e", policy.relativeTolerance);
  return text;
}

CompareOutcome compareBuffers(DataType type, const ComparePolicy& policy, const void* expected,
                              const void* actual, size_t count) {
  CompareOutcome outcome;
  const int elementBytes = static_cast<int>(dataTypeSize(type));
  for (size_t i = 0; i < count; ++i) {
    const uint64_t e = loadElementBits(expected, i, elementBytes);
    const uint64_t a = loadElementBits(actual, i, elementBytes);
    if (!elementsMatch(type, e, a, policy)) {
      if (outcome.mismatches == 0) outcome.firstIndex = i;
      ++outcome.mismatches;
    }
  }
  return outcome;
}

uint64_t hashBuffer(DataType type, const void* data, size_t count) {
  const int elementBytes = static_cast<int>(dataTypeSize(type));
  uint64_t hash = 0;
  for (size_t i = 0; i < count; ++i) hash += elementHashTerm(i, loadElementBits(data, i, elementBytes));
  return hash;
}

std::vector<int> ranksDifferingFromFirst(const std::vector<uint64_t>& hashes) {
  std::vector<int> differing;
  for (size_t r = 1; r < hashes.size(); ++r)
    if (hashes[r] != hashes[0]) differing.push_back(static_cast<int>(r));
  return differing;
}

std::string describeMismatch(DataType type, uint64_t index, uint64_t expectedBits,
                             uint64_t actualBits) {
  const int hexDigits = static_cast<int>(2 * dataTypeSize(type));
  char text[256];
  std::snprintf(text, sizeof(text),
                "index %" PRIu64 ": NCCL %.9g (0x%0*" PRIx64 "), flashccl %.9g (0x%0*" PRIx64 ")",
                index, bitsToDouble(type, expectedBits), hexDigits, expectedBits,
                bitsToDouble(type, actualBits), hexDigits, actualBits);
  return text;
}

}  // namespace perf
}  // namespace flashccl
