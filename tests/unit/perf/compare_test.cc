// flashccl perf: element codec (half/bf16/fp8 on the host), input generator, comparison rules with
// planted mismatches, hashing and the rank-consistency verdict.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "compare.h"
#include "element_codec.h"

namespace flashccl {
namespace perf {
namespace {

uint64_t encode(DataType type, double value) { return doubleToBits(type, value); }
double decode(DataType type, uint64_t bits) { return bitsToDouble(type, bits); }

TEST(ElementCodec, KnownEncodings) {
  EXPECT_EQ(encode(DataType::kHalf, 1.0), 0x3C00u);
  EXPECT_EQ(encode(DataType::kHalf, -2.0), 0xC000u);
  EXPECT_EQ(encode(DataType::kHalf, 65504.0), 0x7BFFu);
  EXPECT_EQ(encode(DataType::kHalf, 1e6), 0x7C00u);             // overflow -> inf
  EXPECT_EQ(encode(DataType::kHalf, 5.960464477539063e-08), 0x0001u);  // smallest subnormal
  EXPECT_EQ(encode(DataType::kBfloat16, 1.0), 0x3F80u);
  EXPECT_EQ(encode(DataType::kBfloat16, 3.0), 0x4040u);
  EXPECT_EQ(encode(DataType::kFloat8e4m3, 1.0), 0x38u);
  EXPECT_EQ(encode(DataType::kFloat8e4m3, 448.0), 0x7Eu);
  EXPECT_EQ(encode(DataType::kFloat8e4m3, 1000.0), 0x7Eu);  // e4m3 saturates, has no inf
  EXPECT_EQ(encode(DataType::kFloat8e4m3, -0.5), 0xB0u);
  EXPECT_EQ(encode(DataType::kFloat8e4m3, 0.001953125), 0x01u);  // 2^-9, smallest subnormal
  EXPECT_EQ(encode(DataType::kFloat8e5m2, 1.0), 0x3Cu);
  EXPECT_EQ(encode(DataType::kFloat8e5m2, 57344.0), 0x7Bu);
  EXPECT_EQ(encode(DataType::kFloat8e5m2, 1e6), 0x7Cu);  // inf
  EXPECT_EQ(encode(DataType::kFloat, 1.5), 0x3FC00000u);
  EXPECT_EQ(encode(DataType::kInt8, -3.0), 0xFDu);
  EXPECT_EQ(encode(DataType::kUint64, 7.0), 7u);
}

TEST(ElementCodec, RoundToNearestEven) {
  // Half: 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1.0).
  EXPECT_EQ(encode(DataType::kHalf, 1.0 + std::ldexp(1.0, -11)), 0x3C00u);
  EXPECT_EQ(encode(DataType::kHalf, 1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02u);
  // e5m2 between 4 and 8 steps by 1: 4.5 -> 4, 5.5 -> 6, 7.5 -> 8 (carries into the next binade).
  EXPECT_EQ(decode(DataType::kFloat8e5m2, encode(DataType::kFloat8e5m2, 4.5)), 4.0);
  EXPECT_EQ(decode(DataType::kFloat8e5m2, encode(DataType::kFloat8e5m2, 5.5)), 6.0);
  EXPECT_EQ(decode(DataType::kFloat8e5m2, encode(DataType::kFloat8e5m2, 7.5)), 8.0);
  // e4m3 just under 2: 1.9375 is halfway between 1.875 and 2.0 -> 2.0 (even).
  EXPECT_EQ(decode(DataType::kFloat8e4m3, encode(DataType::kFloat8e4m3, 1.9375)), 2.0);
}

TEST(ElementCodec, SpecialValuesDecode) {
  EXPECT_TRUE(std::isnan(decode(DataType::kHalf, 0xFFFF)));
  EXPECT_TRUE(std::isinf(decode(DataType::kHalf, 0x7C00)));
  EXPECT_TRUE(std::isnan(decode(DataType::kBfloat16, 0xFFFF)));
  EXPECT_TRUE(std::isnan(decode(DataType::kFloat8e4m3, 0xFF)));
  EXPECT_TRUE(std::isnan(decode(DataType::kFloat8e4m3, 0x7F)));
  EXPECT_EQ(decode(DataType::kFloat8e4m3, 0x7E), 448.0);  // exponent 15 is finite in e4m3
  EXPECT_TRUE(std::isnan(decode(DataType::kFloat8e5m2, 0xFF)));
  EXPECT_TRUE(std::isinf(decode(DataType::kFloat8e5m2, 0x7C)));
  EXPECT_TRUE(std::isnan(decode(DataType::kFloat, 0xFFFFFFFFu)));
  EXPECT_EQ(decode(DataType::kInt8, 0xFF), -1.0);
  EXPECT_EQ(decode(DataType::kUint8, 0xFF), 255.0);
}

TEST(ElementCodec, EveryMiniFloatPatternRoundTrips) {
  for (DataType type : {DataType::kHalf, DataType::kBfloat16, DataType::kFloat8e4m3,
                        DataType::kFloat8e5m2}) {
    const uint32_t patterns = dataTypeSize(type) == 1 ? 256u : 65536u;
    for (uint32_t bits = 0; bits < patterns; ++bits) {
      const double value = decode(type, bits);
      if (std::isnan(value)) continue;
      ASSERT_EQ(encode(type, value), bits) << dataTypeName(type) << " 0x" << std::hex << bits;
    }
  }
}

TEST(InputGenerator, NeverZeroSmallAndExact) {
  for (int t = 0; t < kNumDataTypes; ++t) {
    const DataType type = static_cast<DataType>(t);
    for (int o = 0; o < kNumMeasuredReduceOps; ++o) {
      const ReduceOp op = static_cast<ReduceOp>(o);
      for (int rank = 0; rank < 4; ++rank) {
        for (uint64_t i = 0; i < 200; ++i) {
          const double intended = inputValue(7, rank, i, type, op);
          const double stored = decode(type, inputBits(7, rank, i, type, op));
          ASSERT_NE(stored, 0.0) << dataTypeName(type);
          ASSERT_GT(stored, 0.0);
          ASSERT_LE(stored, 8.0);
          if (op == ReduceOp::kProd) {
            ASSERT_TRUE(stored == 0.5 || stored == 1 || stored == 2);
          }
          // Every format but e5m2 holds the generated values exactly.
          if (type != DataType::kFloat8e5m2) {
            ASSERT_EQ(stored, intended) << dataTypeName(type);
          }
        }
      }
    }
  }
}

TEST(InputGenerator, DependsOnSeedRankAndIndex) {
  const DataType f = DataType::kFloat;
  int differentRank = 0, differentSeed = 0, differentIndex = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    differentRank += inputBits(1, 0, i, f, ReduceOp::kSum) != inputBits(1, 1, i, f, ReduceOp::kSum);
    differentSeed += inputBits(1, 0, i, f, ReduceOp::kSum) != inputBits(2, 0, i, f, ReduceOp::kSum);
    differentIndex += inputBits(1, 0, i, f, ReduceOp::kSum) != inputBits(1, 0, i + 1, f, ReduceOp::kSum);
  }
  EXPECT_GT(differentRank, 80);
  EXPECT_GT(differentSeed, 80);
  EXPECT_GT(differentIndex, 80);
  EXPECT_EQ(inputBits(1, 3, 12345, f, ReduceOp::kSum), inputBits(1, 3, 12345, f, ReduceOp::kSum));
}

TEST(ComparePolicyTest, BitwiseWhereExactTolerantElsewhere) {
  EXPECT_TRUE(comparePolicy(Collective::kAllReduce, DataType::kFloat, ReduceOp::kSum, 2).bitwise);
  EXPECT_TRUE(comparePolicy(Collective::kAllReduce, DataType::kInt32, ReduceOp::kSum, 8).bitwise);
  EXPECT_TRUE(comparePolicy(Collective::kAllGather, DataType::kHalf, ReduceOp::kNone, 8).bitwise);
  const ComparePolicy f4 = comparePolicy(Collective::kAllReduce, DataType::kFloat, ReduceOp::kSum, 4);
  EXPECT_FALSE(f4.bitwise);
  EXPECT_DOUBLE_EQ(f4.relativeTolerance, 3e-5);  // 1e-5 x (4 - 1)
  EXPECT_DOUBLE_EQ(comparePolicy(Collective::kReduceScatter, DataType::kDouble, ReduceOp::kAvg, 3)
                       .relativeTolerance, 2e-12);
  EXPECT_DOUBLE_EQ(comparePolicy(Collective::kAllReduce, DataType::kHalf, ReduceOp::kSum, 3)
                       .relativeTolerance, 2e-2);
  EXPECT_DOUBLE_EQ(comparePolicy(Collective::kAllReduce, DataType::kBfloat16, ReduceOp::kSum, 3)
                       .relativeTolerance, 2e-2);
  EXPECT_DOUBLE_EQ(comparePolicy(Collective::kAllReduce, DataType::kFloat8e4m3, ReduceOp::kSum, 3)
                       .relativeTolerance, 0.26);
  EXPECT_DOUBLE_EQ(comparePolicy(Collective::kAllReduce, DataType::kFloat8e5m2, ReduceOp::kSum, 3)
                       .relativeTolerance, 0.52);
  EXPECT_EQ(describePolicy(comparePolicy(Collective::kAllReduce, DataType::kFloat, ReduceOp::kSum, 2)),
            "bitwise");
  EXPECT_EQ(describePolicy(f4), "relative 3.0e-05");
}

template <typename T>
std::vector<T> filled(size_t count, T value) {
  return std::vector<T>(count, value);
}

TEST(CompareBuffers, BitwisePlantedMismatches) {
  std::vector<float> nccl(1000), ours;
  for (size_t i = 0; i < nccl.size(); ++i) nccl[i] = static_cast<float>(1 + i % 8);
  ours = nccl;
  ours[17] = std::nextafter(ours[17], 100.0f);  // one ulp off: bitwise catches it
  ours[500] = NAN;                             // a poisoned, never-written element
  const ComparePolicy bitwise;
  const CompareOutcome outcome =
      compareBuffers(DataType::kFloat, bitwise, nccl.data(), ours.data(), nccl.size());
  EXPECT_EQ(outcome.mismatches, 2u);
  EXPECT_EQ(outcome.firstIndex, 17u);
  EXPECT_EQ(compareBuffers(DataType::kFloat, bitwise, nccl.data(), nccl.data(), nccl.size()).mismatches,
            0u);
  EXPECT_EQ(compareBuffers(DataType::kFloat, bitwise, nccl.data(), ours.data(), 0).firstIndex,
            UINT64_MAX);
}

TEST(CompareBuffers, ToleranceAcceptsRoundingNotErrors) {
  const ComparePolicy policy = comparePolicy(Collective::kAllReduce, DataType::kFloat, ReduceOp::kSum, 4);
  std::vector<float> nccl = filled<float>(100, 12.5f), ours = nccl;
  ours[3] = 12.5f * (1 + 2e-5f);  // within 3e-5
  ours[4] = 12.5f * (1 + 5e-5f);  // outside
  ours[5] = NAN;
  ours[6] = INFINITY;
  const CompareOutcome outcome =
      compareBuffers(DataType::kFloat, policy, nccl.data(), ours.data(), nccl.size());
  EXPECT_EQ(outcome.mismatches, 3u);
  EXPECT_EQ(outcome.firstIndex, 4u);
  // NaN against NaN with another payload is not a mismatch under a tolerance.
  std::vector<uint32_t> a = {0x7FC00000u}, b = {0x7FC00001u};
  EXPECT_EQ(compareBuffers(DataType::kFloat, policy, a.data(), b.data(), 1).mismatches, 0u);
}

TEST(CompareBuffers, HalfBfloat16AndFloat8OnTheHost) {
  // Half, 3 ranks: tolerance 2e-2. 10.0 vs 10.0625 (0.6 %) passes; 10.0 vs 10.5 (5 %) fails.
  const ComparePolicy half = comparePolicy(Collective::kAllReduce, DataType::kHalf, ReduceOp::kSum, 3);
  std::vector<uint16_t> h1 = {static_cast<uint16_t>(encode(DataType::kHalf, 10.0)),
                              static_cast<uint16_t>(encode(DataType::kHalf, 10.0)),
                              0xFFFF};
  std::vector<uint16_t> h2 = {static_cast<uint16_t>(encode(DataType::kHalf, 10.0625)),
                              static_cast<uint16_t>(encode(DataType::kHalf, 10.5)),
                              static_cast<uint16_t>(encode(DataType::kHalf, 1.0))};
  CompareOutcome outcome = compareBuffers(DataType::kHalf, half, h1.data(), h2.data(), 3);
  EXPECT_EQ(outcome.mismatches, 2u);
  EXPECT_EQ(outcome.firstIndex, 1u);
  // bfloat16 has 8 bits of precision: 100 vs 101 (1 %) passes at 3 ranks, 100 vs 104 fails.
  const ComparePolicy bf = comparePolicy(Collective::kAllReduce, DataType::kBfloat16, ReduceOp::kSum, 3);
  std::vector<uint16_t> b1 = {static_cast<uint16_t>(encode(DataType::kBfloat16, 100.0)),
                              static_cast<uint16_t>(encode(DataType::kBfloat16, 100.0))};
  std::vector<uint16_t> b2 = {static_cast<uint16_t>(encode(DataType::kBfloat16, 101.0)),
                              static_cast<uint16_t>(encode(DataType::kBfloat16, 104.0))};
  EXPECT_EQ(compareBuffers(DataType::kBfloat16, bf, b1.data(), b2.data(), 2).mismatches, 1u);
  // e4m3 at 4 ranks: tolerance 0.39; one step (12 vs 13, 8 %) passes, 8 vs 16 fails.
  const ComparePolicy e4 = comparePolicy(Collective::kReduceScatter, DataType::kFloat8e4m3, ReduceOp::kSum, 4);
  std::vector<uint8_t> f1 = {static_cast<uint8_t>(encode(DataType::kFloat8e4m3, 12.0)),
                             static_cast<uint8_t>(encode(DataType::kFloat8e4m3, 8.0))};
  std::vector<uint8_t> f2 = {static_cast<uint8_t>(encode(DataType::kFloat8e4m3, 13.0)),
                             static_cast<uint8_t>(encode(DataType::kFloat8e4m3, 16.0))};
  outcome = compareBuffers(DataType::kFloat8e4m3, e4, f1.data(), f2.data(), 2);
  EXPECT_EQ(outcome.mismatches, 1u);
  EXPECT_EQ(outcome.firstIndex, 1u);
  // e5m2 at 2 ranks is bitwise: one step off is wrong.
  const ComparePolicy e5 = comparePolicy(Collective::kAllReduce, DataType::kFloat8e5m2, ReduceOp::kSum, 2);
  std::vector<uint8_t> g1 = {static_cast<uint8_t>(encode(DataType::kFloat8e5m2, 12.0))};
  std::vector<uint8_t> g2 = {static_cast<uint8_t>(encode(DataType::kFloat8e5m2, 14.0))};
  EXPECT_EQ(compareBuffers(DataType::kFloat8e5m2, e5, g1.data(), g2.data(), 1).mismatches, 1u);
}

TEST(CompareBuffers, IntegersAreAlwaysBitwise) {
  const ComparePolicy policy = comparePolicy(Collective::kAllReduce, DataType::kInt64, ReduceOp::kSum, 8);
  std::vector<int64_t> a = {1, 2, 3, -4}, b = {1, 2, 4, -4};
  const CompareOutcome outcome = compareBuffers(DataType::kInt64, policy, a.data(), b.data(), 4);
  EXPECT_EQ(outcome.mismatches, 1u);
  EXPECT_EQ(outcome.firstIndex, 2u);
  std::vector<uint8_t> c = {1, 255}, d = {1, 254};
  EXPECT_EQ(compareBuffers(DataType::kUint8, policy, c.data(), d.data(), 2).mismatches, 1u);
}

TEST(Hashing, OrderFreeButPositionSensitive) {
  std::vector<float> a = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> swapped = {2.0f, 1.0f, 3.0f, 4.0f};
  const uint64_t h = hashBuffer(DataType::kFloat, a.data(), a.size());
  EXPECT_EQ(h, hashBuffer(DataType::kFloat, a.data(), a.size()));
  EXPECT_NE(h, hashBuffer(DataType::kFloat, swapped.data(), swapped.size()));
  // The GPU accumulates terms in any order; the sum of the terms is the hash.
  uint64_t reversed = 0;
  for (size_t i = a.size(); i-- > 0;) {
    uint32_t bits;
    std::memcpy(&bits, &a[i], 4);
    reversed += elementHashTerm(i, bits);
  }
  EXPECT_EQ(h, reversed);
}

TEST(RankConsistency, NamesTheRanksThatDiffer) {
  EXPECT_TRUE(ranksDifferingFromFirst({7, 7, 7}).empty());
  EXPECT_TRUE(ranksDifferingFromFirst({}).empty());
  EXPECT_EQ(ranksDifferingFromFirst({7, 8, 7, 9}), (std::vector<int>{1, 3}));
  // The inputs are per rank, so a result buffer that came out the same everywhere hashes the same:
  std::vector<float> rank0 = {3.0f, 5.5f}, rank1 = rank0, rank2 = {3.0f, 5.0f};
  const std::vector<uint64_t> hashes = {hashBuffer(DataType::kFloat, rank0.data(), 2),
                                        hashBuffer(DataType::kFloat, rank1.data(), 2),
                                        hashBuffer(DataType::kFloat, rank2.data(), 2)};
  EXPECT_EQ(ranksDifferingFromFirst(hashes), std::vector<int>{2});
}

TEST(DescribeMismatch, ShowsValuesAndBits) {
  EXPECT_EQ(describeMismatch(DataType::kFloat, 17, 0x40600000u, 0xFFFFFFFFu),
            "index 17: NCCL 3.5 (0x40600000), flashccl -nan (0xffffffff)");
  EXPECT_EQ(describeMismatch(DataType::kFloat8e4m3, 0, 0x38, 0x40),
            "index 0: NCCL 1 (0x38), flashccl 2 (0x40)");
}

}  // namespace
}  // namespace perf
}  // namespace flashccl
