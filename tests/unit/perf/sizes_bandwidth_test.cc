// flashccl perf: size lists, per-rank counts, busbw formulas, pair statistics and spread.
#include <gtest/gtest.h>

#include "bandwidth.h"
#include "measure_plan.h"
#include "size_list.h"
#include "timing_stats.h"

namespace flashccl {
namespace perf {
namespace {

TEST(SizeList, GeometricLikeNcclTests) {
  EXPECT_EQ(geometricSizes(8, 64, 2), (std::vector<size_t>{8, 16, 32, 64}));
  EXPECT_EQ(geometricSizes(8, 100, 4), (std::vector<size_t>{8, 32}));  // 128 would pass -e
  EXPECT_EQ(geometricSizes(1024, 1024, 2), (std::vector<size_t>{1024}));
  EXPECT_EQ(geometricSizes(8, 4ull << 30, 2).size(), 30u);  // 8 B .. 4 GiB
  EXPECT_EQ(geometricSizes(8, 4ull << 30, 2).back(), 4ull << 30);
  EXPECT_TRUE(geometricSizes(64, 8, 2).empty());
  EXPECT_TRUE(geometricSizes(8, 64, 1).empty());
  // No overflow at the top of the range.
  const std::vector<size_t> top = geometricSizes(1ull << 62, ~0ull, 2);
  EXPECT_EQ(top, (std::vector<size_t>{1ull << 62, 1ull << 63}));
}

TEST(SizeList, LinearLikeNcclTestsStepBytes) {
  EXPECT_EQ(linearSizes(8, 40, 16), (std::vector<size_t>{8, 24, 40}));
  EXPECT_EQ(linearSizes(8, 39, 16), (std::vector<size_t>{8, 24}));
  EXPECT_TRUE(linearSizes(8, 64, 0).empty());
  EXPECT_EQ(linearSizes(~0ull - 1, ~0ull, 4), (std::vector<size_t>{~0ull - 1}));  // no overflow
}

TEST(CollectiveCountsTest, WholeBufferSizes) {
  // AllReduce: the buffer; AllGather: the gathered output; ReduceScatter: the input.
  CollectiveCounts ar = collectiveCounts(Collective::kAllReduce, 1024, DataType::kFloat, 4);
  EXPECT_EQ(ar.totalElements, 256u);
  EXPECT_EQ(ar.sendElements, 256u);
  EXPECT_EQ(ar.recvElements, 256u);
  EXPECT_EQ(ar.callCount, 256u);
  CollectiveCounts ag = collectiveCounts(Collective::kAllGather, 1024, DataType::kFloat, 4);
  EXPECT_EQ(ag.totalElements, 256u);
  EXPECT_EQ(ag.sendElements, 64u);
  EXPECT_EQ(ag.recvElements, 256u);
  EXPECT_EQ(ag.callCount, 64u);
  CollectiveCounts rs = collectiveCounts(Collective::kReduceScatter, 1024, DataType::kHalf, 2);
  EXPECT_EQ(rs.totalElements, 512u);
  EXPECT_EQ(rs.sendElements, 512u);
  EXPECT_EQ(rs.recvElements, 256u);
  EXPECT_EQ(rs.callCount, 256u);
}

TEST(SizeProblem, Messages) {
  EXPECT_EQ(sizeProblem(Collective::kAllReduce, 8, DataType::kFloat, 3), "");
  EXPECT_EQ(sizeProblem(Collective::kAllGather, 24, DataType::kFloat, 3), "");
  EXPECT_EQ(sizeProblem(Collective::kAllGather, 8, DataType::kFloat, 3),
            "size 8 B cannot be split evenly over 3 ranks for allgather with float (4 B "
            "elements): the size is the whole gathered output, so it must be a multiple of 3 x 4 "
            "= 12 B (e.g. start with -b 12)");
  EXPECT_NE(sizeProblem(Collective::kReduceScatter, 8, DataType::kDouble, 2)
                .find("the size is the whole input"),
            std::string::npos);
  EXPECT_NE(sizeProblem(Collective::kAllReduce, 6, DataType::kInt64, 2)
                .find("size 6 B is not a whole number of int64 elements (8 B each)"),
            std::string::npos);
}

TEST(Bandwidth, NcclTestsFactors) {
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::kAllGather, 2), 0.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::kAllReduce, 1), 0.0);
}

TEST(Bandwidth, MatchesTheBaselineNumbers) {
  // nccl-tests' all_reduce_perf on the 2 x H200 machine: 1048576 B in 15.57 us -> 67.35 GB/s.
  EXPECT_NEAR(algorithmBandwidth(1048576, 15.57), 67.35, 0.01);
  EXPECT_NEAR(busBandwidth(Collective::kAllReduce, 2, 1048576, 15.57), 67.35, 0.01);
  // all_gather_perf there: 2147483648 B in 3710.84 us -> algbw 578.71, busbw 289.35.
  EXPECT_NEAR(algorithmBandwidth(2147483648ull, 3710.84), 578.71, 0.01);
  EXPECT_NEAR(busBandwidth(Collective::kAllGather, 2, 2147483648ull, 3710.84), 289.35, 0.01);
  EXPECT_EQ(algorithmBandwidth(8, 0.0), 0.0);
}

TEST(TimingStats, MedianAndPairs) {
  EXPECT_EQ(median({}), 0.0);
  EXPECT_EQ(median({3.0}), 3.0);
  EXPECT_EQ(median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  // A noisy pair (both halves slow) keeps its ratio; the median ignores the odd one out.
  const PairedSummary s = summarizePairs({10.0, 20.0, 10.0, 10.4, 30.0}, {5.0, 10.0, 5.0, 5.2, 10.0});
  EXPECT_DOUBLE_EQ(s.speedup, 2.0);
  EXPECT_DOUBLE_EQ(s.nccl.median, 10.4);
  EXPECT_DOUBLE_EQ(s.flashccl.median, 5.2);
  EXPECT_DOUBLE_EQ(s.speedupMin, 2.0);
  EXPECT_DOUBLE_EQ(s.speedupMax, 3.0);
}

TEST(TimingStats, SpreadIsRangeAndQuartilesOfThePairs) {
  const Spread s = spreadOf({12.0, 10.0, 11.0, 10.0, 14.0});
  EXPECT_DOUBLE_EQ(s.min, 10.0);
  EXPECT_DOUBLE_EQ(s.q1, 10.0);
  EXPECT_DOUBLE_EQ(s.median, 11.0);
  EXPECT_DOUBLE_EQ(s.q3, 12.0);
  EXPECT_DOUBLE_EQ(s.max, 14.0);
  EXPECT_NEAR(s.rangePercent(), 100.0 * 4.0 / 11.0, 1e-12);
  const Spread even = spreadOf({1.0, 2.0, 3.0, 4.0});  // interpolated, as numpy.percentile
  EXPECT_DOUBLE_EQ(even.q1, 1.75);
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_DOUBLE_EQ(even.q3, 3.25);
  EXPECT_EQ(spreadOf({}).rangePercent(), 0.0);
}

TEST(TimingStats, RanksCombineAsNcclTestsAverage) {
  const std::vector<std::vector<double>> perRank = {{1.0, 5.0}, {2.0, 4.0}, {0.0, 6.0}};
  EXPECT_EQ(combineRanks(perRank, 0), (std::vector<double>{1.0, 5.0}));  // rank 0
  EXPECT_EQ(combineRanks(perRank, 1), (std::vector<double>{1.0, 5.0}));  // mean
  EXPECT_EQ(combineRanks(perRank, 2), (std::vector<double>{0.0, 4.0}));  // min
  EXPECT_EQ(combineRanks(perRank, 3), (std::vector<double>{2.0, 6.0}));  // max
}

TEST(TimingStats, Geomean) {
  EXPECT_NEAR(geometricMean({1.0, 4.0}), 2.0, 1e-12);
  EXPECT_EQ(geometricMean({}), 0.0);
}

TEST(MeasurePlan, OrderAndAllGatherHasNoOp) {
  PerfOptions options;
  options.sizes.minBytes = 8;
  options.sizes.maxBytes = 16;
  options.collectives = {Collective::kAllGather, Collective::kAllReduce};
  options.reduceOps = {ReduceOp::kSum, ReduceOp::kMax};
  options.placements = {Placement::kOutOfPlace, Placement::kInPlace};
  const std::vector<MeasureCase> cases = buildMeasureCases(options);
  ASSERT_EQ(cases.size(), 2u * 2u + 2u * 2u * 2u);  // AG: 2 sizes x 2 places; AR: x 2 ops
  EXPECT_EQ(cases[0].collective, Collective::kAllGather);
  EXPECT_EQ(cases[0].op, ReduceOp::kNone);
  EXPECT_EQ(cases[0].bytes, 8u);
  EXPECT_EQ(cases[1].placement, Placement::kInPlace);
  EXPECT_EQ(cases[2].bytes, 16u);
  EXPECT_EQ(cases[4].collective, Collective::kAllReduce);
  EXPECT_EQ(cases[4].op, ReduceOp::kSum);
  EXPECT_EQ(cases[8].op, ReduceOp::kMax);
  EXPECT_EQ(bufferBytesNeeded(cases), 16u);
}

TEST(MeasurePlan, InPlaceLayoutsFollowNcclConventions) {
  // AllGather in place on rank 2 of 4, 64 B of float: the input is recvbuff + 2 * 16 B.
  CaseLayout ag = caseLayout({Collective::kAllGather, DataType::kFloat, ReduceOp::kNone, 64,
                              Placement::kInPlace}, 2, 4);
  EXPECT_EQ(ag.input.buffer, BufferId::kRecv);
  EXPECT_EQ(ag.input.offsetBytes, 32u);
  EXPECT_EQ(ag.input.bytes, 16u);
  EXPECT_EQ(ag.output.offsetBytes, 0u);
  EXPECT_EQ(ag.output.bytes, 64u);
  ASSERT_EQ(ag.poison.size(), 2u);  // every chunk but ours
  EXPECT_EQ(ag.poison[0].offsetBytes, 0u);
  EXPECT_EQ(ag.poison[0].bytes, 32u);
  EXPECT_EQ(ag.poison[1].offsetBytes, 48u);
  EXPECT_EQ(ag.poison[1].bytes, 16u);
  // ReduceScatter in place on rank 1 of 2: the output is sendbuff + 1 * recvcount.
  CaseLayout rs = caseLayout({Collective::kReduceScatter, DataType::kHalf, ReduceOp::kSum, 64,
                              Placement::kInPlace}, 1, 2);
  EXPECT_EQ(rs.input.buffer, BufferId::kRecv);
  EXPECT_EQ(rs.input.bytes, 64u);
  EXPECT_EQ(rs.output.offsetBytes, 32u);
  EXPECT_EQ(rs.output.bytes, 32u);
  EXPECT_EQ(rs.recvPointerOffset, 32u);
  EXPECT_TRUE(rs.poison.empty());
  // Out of place: separate buffers, the whole output poisoned.
  CaseLayout ar = caseLayout({Collective::kAllReduce, DataType::kInt8, ReduceOp::kSum, 8,
                              Placement::kOutOfPlace}, 0, 2);
  EXPECT_EQ(ar.input.buffer, BufferId::kSend);
  EXPECT_EQ(ar.output.buffer, BufferId::kRecv);
  ASSERT_EQ(ar.poison.size(), 1u);
  EXPECT_EQ(ar.poison[0].bytes, 8u);
}

}  // namespace
}  // namespace perf
}  // namespace flashccl
