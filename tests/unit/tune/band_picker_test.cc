// flashccl tune's decision: a forced choice wins a size only beyond the measured spread plus the
// margin, refused choices never win, ties and near-ties are settled so bands do not fray, and
// adjacent sizes with one winner make one band.
#include <gtest/gtest.h>

#include "band_picker.h"

namespace flashccl {
namespace tune {
namespace {

Timing tight(double micros) { return {micros, micros, micros}; }
Timing spread(double micros, double iqrFraction) {
  return {micros, micros * (1 - iqrFraction / 2), micros * (1 + iqrFraction / 2)};
}

SizePoint point(size_t bytes, std::vector<Timing> defaults, std::vector<CandidateTiming> candidates) {
  SizePoint p;
  p.bytes = bytes;
  p.defaults = std::move(defaults);
  p.candidates = std::move(candidates);
  return p;
}

TEST(BandPicker, AChoiceMustBeatTheDefaultByMoreThanSpreadPlusMargin) {
  // The default's two runs: 100 and 104 us, so a run-to-run spread of 4 / 102 = 3.9%.
  const std::vector<Timing> defaults = {tight(100), tight(104)};
  // 5% faster than the default's 102: not beyond 3.9% + 2%.
  std::vector<SizeDecision> d = decideSizes({point(1024, defaults, {{0, tight(96.9), true}})}, 0.02,
                                            PickRule::kSignificant);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_DOUBLE_EQ(d[0].defaultMicros, 102);
  EXPECT_NEAR(d[0].runToRunFraction, 4.0 / 102, 1e-12);
  EXPECT_EQ(d[0].winner, -1);
  EXPECT_EQ(d[0].fastest, 0);
  EXPECT_NEAR(d[0].requiredFraction, 4.0 / 102 + 0.02, 1e-12);
  // 10% faster: it wins.
  d = decideSizes({point(1024, defaults, {{0, tight(91.8), true}})}, 0.02, PickRule::kSignificant);
  EXPECT_EQ(d[0].winner, 0);
  EXPECT_NEAR(d[0].gainFraction, 0.1, 1e-12);
  // The same 10% with no margin but a candidate whose own blocks spread over 7 us (7.6% of its
  // 91.8, 6.9% of the default's 102): 3.9% + 6.9% > 10%.
  d = decideSizes({point(1024, defaults, {{0, spread(91.8, 7.0 / 91.8), true}})}, 0.0, PickRule::kSignificant);
  EXPECT_EQ(d[0].winner, -1);
  EXPECT_NEAR(d[0].spreadFraction, 4.0 / 102 + 7.0 / 102, 1e-12);
  // Its noise counts in the default's unit: a choice five times faster whose blocks wander by
  // 10 us (50% of its own 20 us, 9.8% of the default's 102) still wins by 80%.
  d = decideSizes({point(1024, defaults, {{0, spread(20, 0.5), true}})}, 0.02, PickRule::kSignificant);
  EXPECT_EQ(d[0].winner, 0);
  EXPECT_NEAR(d[0].spreadFraction, 4.0 / 102 + 10.0 / 102, 1e-12);
  // A default whose blocks spread over 15% within one run keeps everything within 15% + margin.
  d = decideSizes({point(1024, {spread(100, 0.15), tight(100)}, {{0, tight(84), true}})}, 0.02,
                  PickRule::kSignificant);
  EXPECT_EQ(d[0].winner, -1);
}

TEST(BandPicker, ARefusedChoiceNeverWinsEvenWhenItsTimeIsBest) {
  // NCCL refused choice 1 and ran its own, which happened to be quick: not choice 1's time.
  const std::vector<SizeDecision> d = decideSizes(
      {point(4096, {tight(100), tight(100)}, {{0, tight(80), true}, {1, tight(50), false}})}, 0.02,
      PickRule::kSignificant);
  EXPECT_EQ(d[0].winner, 0);
  EXPECT_EQ(d[0].fastest, 0);
  // Under --pick fastest too.
  const std::vector<SizeDecision> f =
      decideSizes({point(4096, {tight(100)}, {{1, tight(50), false}})}, 0.02, PickRule::kFastest);
  EXPECT_EQ(f[0].winner, -1);
  EXPECT_EQ(f[0].fastest, -1);
}

TEST(BandPicker, EqualTimesGoToTheChoiceListedFirst) {
  const std::vector<SizeDecision> d = decideSizes(
      {point(8, {tight(100)}, {{3, tight(50), true}, {1, tight(50), true}, {2, tight(50), true}})}, 0.02,
      PickRule::kSignificant);
  EXPECT_EQ(d[0].winner, 1);
}

TEST(BandPicker, ThePreviousWinnerKeepsASizeItWinsWithinTheSpread) {
  const std::vector<Timing> defaults = {spread(100, 0.04), spread(100, 0.04)};
  const std::vector<SizeDecision> d = decideSizes(
      {point(1024, defaults, {{0, tight(60), true}, {1, tight(62), true}}),
       // Choice 1 is 1.7% faster here, inside the 4% spread: choice 0 keeps the size.
       point(2048, defaults, {{0, tight(60), true}, {1, tight(59), true}}),
       // Choice 1 is 25% faster: the band changes hands.
       point(4096, defaults, {{0, tight(80), true}, {1, tight(60), true}})},
      0.02, PickRule::kSignificant);
  EXPECT_EQ(d[0].winner, 0);
  EXPECT_EQ(d[1].winner, 0);
  EXPECT_EQ(d[1].fastest, 1);
  EXPECT_EQ(d[2].winner, 1);
}

TEST(BandPicker, AdjacentWinnersMergeIntoInclusiveBandsAndGapsStayWithNccl) {
  auto decided = [](size_t bytes, int winner) {
    SizeDecision d;
    d.bytes = bytes;
    d.winner = winner;
    return d;
  };
  const std::vector<Band> bands = mergeBands({decided(1024, 2), decided(2048, 2), decided(4096, 2), decided(8192, -1),
                                              decided(16384, 2), decided(32768, 0), decided(65536, 0)});
  ASSERT_EQ(bands.size(), 3u);
  EXPECT_EQ(bands[0].winner, 2);
  EXPECT_EQ(bands[0].minBytes, 1024u);
  EXPECT_EQ(bands[0].maxBytes, 4096u);
  EXPECT_EQ(bands[1].minBytes, 16384u);  // the same winner after a size NCCL kept: a band of its own
  EXPECT_EQ(bands[1].maxBytes, 16384u);
  EXPECT_EQ(bands[2].winner, 0);
  EXPECT_EQ(bands[2].minBytes, 32768u);
  EXPECT_EQ(bands[2].maxBytes, 65536u);
  EXPECT_TRUE(mergeBands({decided(8, -1)}).empty());
}

TEST(BandPicker, FastestPicksEverySizeWhateverTheDefault) {
  const std::vector<SizeDecision> d = decideSizes(
      {point(1024, {tight(100)}, {{0, tight(130), true}, {1, tight(120), true}})}, 0.02, PickRule::kFastest);
  EXPECT_EQ(d[0].winner, 1);
  EXPECT_LT(d[0].gainFraction, 0);
}

TEST(BandPicker, NoDefaultNoDecision) {
  const std::vector<SizeDecision> d = decideSizes({point(1024, {}, {{0, tight(10), true}})}, 0.0, PickRule::kFastest);
  EXPECT_EQ(d[0].winner, -1);
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
