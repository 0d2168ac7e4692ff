// One element of any NCCL datatype, as raw bits: decoding to double, encoding from double, the
// seeded input generator, the match rule and the order-free hash.
//
// These functions are __host__ __device__: the GPU fills, compares and hashes with exactly the code the
// CPU unit tests exercise (perf_kernels.cu includes this header). Reduced-precision formats are decoded
// and encoded bit by bit rather than through cuda_fp16/cuda_fp8, so the host needs no CUDA headers and
// both sides round identically.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "perf_types.h"

#if defined(__CUDACC__)
#define FCCL_PERF_HD __host__ __device__ __forceinline__
#else
#define FCCL_PERF_HD inline
#endif

namespace flashccl {
namespace perf {

// A binary floating-point format with `mantissaBits` stored fraction bits and an exponent bias.
// ieeeSpecials: all-ones exponent means inf/NaN (half, bfloat16, e5m2). e4m3 (the "fn" variant NCCL
// and CUDA use) has no infinity: only S.1111.111 is NaN, and 448 is the largest finite value.
struct MiniFloatFormat {
  int exponentBits;
  int mantissaBits;
  int bias;
  bool ieeeSpecials;
};

FCCL_PERF_HD MiniFloatFormat miniFloatFormat(DataType type) {
  switch (type) {
    case DataType::kHalf: return {5, 10, 15, true};
    case DataType::kBfloat16: return {8, 7, 127, true};
    case DataType::kFloat8e4m3: return {4, 3, 7, false};
    case DataType::kFloat8e5m2: return {5, 2, 15, true};
    default: return {0, 0, 0, true};
  }
}

FCCL_PERF_HD double decodeMiniFloat(uint32_t bits, MiniFloatFormat f) {
  const uint32_t mantissaMask = (1u << f.mantissaBits) - 1u;
  const uint32_t exponentMask = (1u << f.exponentBits) - 1u;
  const bool negative = (bits >> (f.exponentBits + f.mantissaBits)) & 1u;
  const uint32_t exponent = (bits >> f.mantissaBits) & exponentMask;
  const uint32_t mantissa = bits & mantissaMask;
  double magnitude;
  if (exponent == exponentMask && f.ieeeSpecials) {
    magnitude = mantissa ? NAN : INFINITY;
  } else if (exponent == exponentMask && !f.ieeeSpecials && mantissa == mantissaMask) {
    magnitude = NAN;
  } else if (exponent == 0) {
    magnitude = ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissaBits);
  } else {
    magnitude = ldexp(static_cast<double>(mantissa | (mantissaMask + 1u)),
                      static_cast<int>(exponent) - f.bias - f.mantissaBits);
  }
  return negative ? -magnitude : magnitude;
}

// Round to nearest, ties to even. Overflow gives infinity (IEEE formats) or saturates to the largest
// finite value (e4m3, as cuda_fp8's __NV_SATFINITE does).
FCCL_PERF_HD uint32_t encodeMiniFloat(double value, MiniFloatFormat f) {
  const uint32_t signBit = 1u << (f.exponentBits + f.mantissaBits);
  const uint32_t exponentMask = (1u << f.exponentBits) - 1u;
  const uint32_t mantissaMask = (1u << f.mantissaBits) - 1u;
  if (isnan(value)) return signBit - 1u;  // all exponent and mantissa bits set: a NaN in every format
  const uint32_t sign = signbit(value) ? signBit : 0u;
  const double magnitude = fabs(value);
  // Largest finite encoding: exponent field all-ones minus one for IEEE formats; for e4m3 the
  // all-ones exponent is usable except for the NaN mantissa.
  const uint32_t maxFinite = f.ieeeSpecials
                                 ? (((exponentMask - 1u) << f.mantissaBits) | mantissaMask)
                                 : ((exponentMask << f.mantissaBits) | (mantissaMask - 1u));
  const uint32_t infinity = exponentMask << f.mantissaBits;
  if (isinf(magnitude)) return sign | (f.ieeeSpecials ? infinity : maxFinite);
  if (magnitude == 0.0) return sign;
  int exponent = 0;
  frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
  int unbiased = exponent - 1;  // position of the leading one
  const int minNormal = 1 - f.bias;
  // Quantum (value of the last mantissa bit) for this binade; subnormals share minNormal's quantum.
  const int quantumExponent = (unbiased < minNormal ? minNormal : unbiased) - f.mantissaBits;
  const double scaled = rint(ldexp(magnitude, -quantumExponent));  // rint: ties to even
  uint64_t q = static_cast<uint64_t>(scaled);
  uint32_t bits;
  if (unbiased < minNormal) {
    bits = static_cast<uint32_t>(q);  // subnormal; q == 2^M rounds up into exponent field 1 as it should
  } else {
    if (q >> (f.mantissaBits + 1)) {  // rounding carried into the next binade
      q >>= 1;
      ++unbiased;
    }
    const uint64_t field = static_cast<uint64_t>(unbiased + f.bias);
    bits = static_cast<uint32_t>((field << f.mantissaBits) | (q & mantissaMask));
    if (field > exponentMask || bits > maxFinite) return sign | (f.ieeeSpecials ? infinity : maxFinite);
  }
  return sign | bits;
}

FCCL_PERF_HD double bitsToDouble(DataType type, uint64_t bits) {
  switch (type) {
    case DataType::kInt8: return static_cast<double>(static_cast<int8_t>(bits));
    case DataType::kUint8: return static_cast<double>(static_cast<uint8_t>(bits));
    case DataType::kInt32: return static_cast<double>(static_cast<int32_t>(bits));
    case DataType::kUint32: return static_cast<double>(static_cast<uint32_t>(bits));
    case DataType::kInt64: return static_cast<double>(static_cast<int64_t>(bits));
    case DataType::kUint64: return static_cast<double>(bits);
    case DataType::kFloat: {
      const uint32_t word = static_cast<uint32_t>(bits);
      float value;
      memcpy(&value, &word, sizeof(value));
      return value;
    }
    case DataType::kDouble: {
      double value;
      memcpy(&value, &bits, sizeof(value));
      return value;
    }
    default: return decodeMiniFloat(static_cast<uint32_t>(bits), miniFloatFormat(type));
  }
}

// Integer types take the value truncated toward zero (callers pass whole numbers).
FCCL_PERF_HD uint64_t doubleToBits(DataType type, double value) {
  switch (type) {
    case DataType::kInt8: return static_cast<uint8_t>(static_cast<int8_t>(value));
    case DataType::kUint8: return static_cast<uint8_t>(value);
    case DataType::kInt32: return static_cast<uint32_t>(static_cast<int32_t>(value));
    case DataType::kUint32: return static_cast<uint32_t>(value);
    case DataType::kInt64: return static_cast<uint64_t>(static_cast<int64_t>(value));
    case DataType::kUint64: return static_cast<uint64_t>(value);
    case DataType::kFloat: {
      const float narrow = static_cast<float>(value);
      uint32_t word;
      memcpy(&word, &narrow, sizeof(word));
      return word;
    }
    case DataType::kDouble: {
      uint64_t word;
      memcpy(&word, &value, sizeof(word));
      return word;
    }
    default: return encodeMiniFloat(value, miniFloatFormat(type));
  }
}

// splitmix64's finalizer: a cheap, well-mixed 64-bit hash.
FCCL_PERF_HD uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Rank `rank`'s input element `index`: never zero, exactly representable, and small enough that the
// reduction of any number of ranks a host can hold stays exact in every type:
//   sum/min/max/avg: 1, 1.5, 2, ..., 8 (integers 1..8); sums of these are exact in float and wider,
//     and integer sums stay far below every type's limit.
//   prod: 0.5, 1 or 2 (integers 1 or 2); products are powers of two, exact in every float format.
// The result is deterministic in (seed, rank, index, type, op), so any rank can regenerate any input.
FCCL_PERF_HD double inputValue(uint64_t seed, int rank, uint64_t index, DataType type, ReduceOp op) {
  const uint64_t draw = mix64(seed ^ mix64((static_cast<uint64_t>(rank) << 48) ^ index));
  const bool integer = type <= DataType::kUint64;
  if (op == ReduceOp::kProd) {
    if (integer) return (draw % 4u == 0u) ? 2.0 : 1.0;  // mostly ones: 2^nranks overflows int8 late
    const uint64_t pick = draw % 3u;
    return pick == 0 ? 0.5 : (pick == 1 ? 1.0 : 2.0);
  }
  if (integer) return static_cast<double>(1u + draw % 8u);
  return 1.0 + 0.5 * static_cast<double>(draw % 15u);
}

FCCL_PERF_HD uint64_t inputBits(uint64_t seed, int rank, uint64_t index, DataType type, ReduceOp op) {
  return doubleToBits(type, inputValue(seed, rank, index, type, op));
}

// How flashccl's element is held against NCCL's: bit for bit, or within a relative tolerance.
struct ComparePolicy {
  bool bitwise = true;
  double relativeTolerance = 0.0;
  double absoluteTolerance = 0.0;  // floor near zero (the format's smallest normal x tolerance)
};

FCCL_PERF_HD bool elementsMatch(DataType type, uint64_t expectedBits, uint64_t actualBits,
                                ComparePolicy policy) {
  if (expectedBits == actualBits) return true;
  if (policy.bitwise) return false;
  const double expected = bitsToDouble(type, expectedBits);
  const double actual = bitsToDouble(type, actualBits);
  if (isnan(expected) && isnan(actual)) return true;  // NaNs with different payloads
  if (isnan(expected) || isnan(actual) || isinf(expected) || isinf(actual)) return false;
  const double scale = fmax(fabs(expected), fabs(actual));
  return fabs(expected - actual) <= policy.relativeTolerance * scale + policy.absoluteTolerance;
}

// Order-free hash of a buffer: the sum (mod 2^64) of one mixed term per element, each term binding
// the element's bits to its index. A sum can be accumulated by any number of GPU threads in any
// order and still give the same value, so equal buffers hash equal on every rank, run after run.
FCCL_PERF_HD uint64_t elementHashTerm(uint64_t index, uint64_t bits) {
  return mix64(mix64(index ^ 0x632BE59BD9B4E019ull) + bits);
}

// Loads element `index` of `data` (elements of `elementBytes` bytes) as raw bits.
FCCL_PERF_HD uint64_t loadElementBits(const void* data, uint64_t index, int elementBytes) {
  const unsigned char* base = static_cast<const unsigned char*>(data);
  switch (elementBytes) {
    case 1: return base[index];
    case 2: { uint16_t v; memcpy(&v, base + index * 2, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, base + index * 4, 4); return v; }
    default: { uint64_t v; memcpy(&v, base + index * 8, 8); return v; }
  }
}

FCCL_PERF_HD void storeElementBits(void* data, uint64_t index, int elementBytes, uint64_t bits) {
  unsigned char* base = static_cast<unsigned char*>(data);
  switch (elementBytes) {
    case 1: base[index] = static_cast<unsigned char>(bits); break;
    case 2: { uint16_t v = static_cast<uint16_t>(bits); memcpy(base + index * 2, &v, 2); break; }
    case 4: { uint32_t v = static_cast<uint32_t>(bits); memcpy(base + index * 4, &v, 4); break; }
    default: memcpy(base + index * 8, &bits, 8); break;
  }
}

}  // namespace perf
}  // namespace flashccl
