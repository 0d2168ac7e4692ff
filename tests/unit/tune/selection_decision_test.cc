// The selection rows' decision (selection_decision.h): a flashccl algorithm gets a band only where
// it beats NCCL's default beyond spread + margin at every size and under every condition (fp32 and
// bf16, in place and out of place); a size it loses splits the band; every other size says nccl.
#include <gtest/gtest.h>

#include "selection_decision.h"

namespace flashccl {
namespace tune {
namespace {

Timing tight(double micros) { return {micros, micros, micros}; }

const std::vector<std::string> kNames = {"allreduce_oneshot", "allreduce_twoshot"};

// A size where NCCL's default takes `nccl` us (two runs, `nccl` and `nccl + runGap`) and the
// algorithms take `times[i]` (<= 0: did not run), the same under every condition unless `change`
// rewrites one.
SelectionSize sizeOf(size_t bytes, double nccl, double runGap, std::vector<double> times) {
  SelectionSize s;
  s.bytes = bytes;
  for (size_t c = 0; c < selectionConditions().size(); ++c) {
    SizePoint p;
    p.bytes = bytes;
    p.defaults = {tight(nccl), tight(nccl + runGap)};
    for (size_t i = 0; i < times.size(); ++i)
      if (times[i] > 0) p.candidates.push_back({int(i), tight(times[i]), true});
    s.conditions.push_back(p);
  }
  return s;
}

TEST(SelectionDecision, AWinByLessThanTheSpreadSaysNccl) {
  // Default 100 and 104 (3.9% run to run); the algorithm is 5% faster than 102: not beyond 3.9% + 2%.
  std::vector<SelectionDecision> d = decideSelection({sizeOf(1024, 100, 4, {96.9})}, 0.02, PickRule::kSignificant, kNames);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].winner, -1);
  EXPECT_EQ(d[0].best, 0);
  EXPECT_NEAR(d[0].spreadFraction, 4.0 / 102, 1e-12);
  EXPECT_NE(d[0].why.find("needed more than"), std::string::npos) << d[0].why;
  EXPECT_TRUE(selectionBands(d).empty());
  // 10% faster: it wins, and the band records its speedup and spread.
  d = decideSelection({sizeOf(1024, 100, 4, {91.8})}, 0.02, PickRule::kSignificant, kNames);
  EXPECT_EQ(d[0].winner, 0);
  EXPECT_NEAR(d[0].speedup, 102 / 91.8, 1e-9);
  const std::vector<SelectionBand> bands = selectionBands(d);
  ASSERT_EQ(bands.size(), 1u);
  EXPECT_EQ(bands[0].minBytes, 1024u);
  EXPECT_EQ(bands[0].maxBytes, 1024u);
  EXPECT_NEAR(bands[0].maxSpread, 4.0 / 102, 1e-12);
}

TEST(SelectionDecision, ALossAtOneSizeSplitsTheBand) {
  std::vector<SelectionSize> sizes = {sizeOf(1024, 100, 0, {50}), sizeOf(2048, 100, 0, {50}),
                                      sizeOf(4096, 100, 0, {99}),  // barely faster: a loss
                                      sizeOf(8192, 100, 0, {50}), sizeOf(16384, 100, 0, {50})};
  const std::vector<SelectionBand> bands = selectionBands(decideSelection(sizes, 0.02, PickRule::kSignificant, kNames));
  ASSERT_EQ(bands.size(), 2u);
  EXPECT_EQ(bands[0].minBytes, 1024u);
  EXPECT_EQ(bands[0].maxBytes, 2048u);
  EXPECT_EQ(bands[1].minBytes, 8192u);
  EXPECT_EQ(bands[1].maxBytes, 16384u);
  EXPECT_NEAR(bands[0].minSpeedup, 2.0, 1e-12);
}

TEST(SelectionDecision, ARowMustWinUnderEveryConditionOrItSaysNccl) {
  // Twice as fast, except bf16 in place, where it is slower than NCCL.
  SelectionSize s = sizeOf(1024, 100, 0, {50});
  ASSERT_EQ(selectionConditions().size(), 4u);
  s.conditions[3].candidates[0].timing = tight(120);
  std::vector<SelectionDecision> d = decideSelection({s}, 0.02, PickRule::kSignificant, kNames);
  EXPECT_EQ(d[0].winner, -1);
  EXPECT_NE(d[0].why.find("bf16 in place"), std::string::npos) << d[0].why;
  // Not run at all under one condition (flashccl forwarded it to NCCL): also nccl.
  s = sizeOf(1024, 100, 0, {50});
  s.conditions[1].candidates[0].available = false;
  d = decideSelection({s}, 0.02, PickRule::kSignificant, kNames);
  EXPECT_EQ(d[0].winner, -1);
  EXPECT_NE(d[0].why.find("fp32 in place"), std::string::npos) << d[0].why;
}

TEST(SelectionDecision, OfSeveralWinnersTheOneWithTheLargestSmallestGainKeepsTheSize) {
  // Algorithm 0 is fastest out of place but only just wins in place; 1 wins well everywhere.
  SelectionSize s = sizeOf(1024, 100, 0, {40, 60});
  s.conditions[1].candidates[0].timing = tight(95);
  const std::vector<SelectionDecision> d = decideSelection({s}, 0.02, PickRule::kSignificant, kNames);
  EXPECT_EQ(d[0].winner, 1);
  EXPECT_EQ(d[0].best, 0);
  EXPECT_DOUBLE_EQ(d[0].bestMicros, 60);
}

TEST(SelectionDecision, PickFastestNamesFlashcclWhateverNcclMeasured) {
  // Slower than NCCL: significant says nccl, fastest (for testing tables) names the algorithm.
  const std::vector<SelectionSize> sizes = {sizeOf(1024, 100, 0, {150, 130})};
  EXPECT_EQ(decideSelection(sizes, 0.02, PickRule::kSignificant, kNames)[0].winner, -1);
  EXPECT_EQ(decideSelection(sizes, 0.02, PickRule::kFastest, kNames)[0].winner, 1);
  // Nothing ran: nccl either way, with the reason.
  const std::vector<SelectionDecision> none =
      decideSelection({sizeOf(1024, 100, 0, {})}, 0.02, PickRule::kFastest, kNames);
  EXPECT_EQ(none[0].winner, -1);
  EXPECT_EQ(none[0].why, "no flashccl algorithm ran");
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
