// SelectionRow / SelectionTable matching: bounds, unbounded rows, placement, rank and node counts.
#include <gtest/gtest.h>

#include "topo/selection_table.h"

namespace flashccl {
namespace {

SelectionRow row(CollKind kind, size_t minBytes, size_t maxBytes, Placement placement,
                 const char* algorithm) {
  SelectionRow r;
  r.kind = kind;
  r.minBytes = minBytes;
  r.maxBytes = maxBytes;
  r.placement = placement;
  r.algorithm = algorithm;
  r.source = algorithm;
  return r;
}

constexpr CollKind kAR = CollKind::kAllReduce;
constexpr CollKind kAG = CollKind::kAllGather;

TEST(SelectionRow, BoundsAreInclusive) {
  const SelectionRow r = row(kAR, 1024, 4096, Placement::kAny, "a");
  EXPECT_FALSE(r.matches(kAR, 2, 1, 1023, true));
  EXPECT_TRUE(r.matches(kAR, 2, 1, 1024, true));
  EXPECT_TRUE(r.matches(kAR, 2, 1, 4096, true));
  EXPECT_FALSE(r.matches(kAR, 2, 1, 4097, true));
}

TEST(SelectionRow, MaxBytesZeroIsUnbounded) {
  const SelectionRow r = row(kAR, 64, 0, Placement::kAny, "a");
  EXPECT_FALSE(r.matches(kAR, 2, 1, 63, false));
  EXPECT_TRUE(r.matches(kAR, 2, 1, 64, false));
  EXPECT_TRUE(r.matches(kAR, 2, 1, size_t(1) << 40, false));
  EXPECT_TRUE(r.matches(kAR, 2, 1, ~size_t(0), false));
  const SelectionRow all = row(kAR, 0, 0, Placement::kAny, "all");
  EXPECT_TRUE(all.matches(kAR, 2, 1, 0, false));
}

TEST(SelectionRow, Placement) {
  const SelectionRow any = row(kAR, 0, 0, Placement::kAny, "any");
  const SelectionRow in = row(kAR, 0, 0, Placement::kInPlace, "in");
  const SelectionRow out = row(kAR, 0, 0, Placement::kOutOfPlace, "out");
  EXPECT_TRUE(any.matches(kAR, 2, 1, 8, true));
  EXPECT_TRUE(any.matches(kAR, 2, 1, 8, false));
  EXPECT_TRUE(in.matches(kAR, 2, 1, 8, true));
  EXPECT_FALSE(in.matches(kAR, 2, 1, 8, false));
  EXPECT_FALSE(out.matches(kAR, 2, 1, 8, true));
  EXPECT_TRUE(out.matches(kAR, 2, 1, 8, false));
}

TEST(SelectionRow, KindRanksAndNodes) {
  SelectionRow r = row(kAR, 0, 0, Placement::kAny, "a");
  EXPECT_FALSE(r.matches(kAG, 2, 1, 8, true));
  EXPECT_TRUE(r.matches(kAR, 7, 3, 8, true));  // 0 = any
  r.nranks = 8;
  r.nnodes = 1;
  EXPECT_TRUE(r.matches(kAR, 8, 1, 8, true));
  EXPECT_FALSE(r.matches(kAR, 4, 1, 8, true));
  EXPECT_FALSE(r.matches(kAR, 8, 2, 8, true));
}

TEST(SelectionTable, FirstMatchInOrder) {
  SelectionTable table;
  table.rows = {row(kAR, 0, 256 << 10, Placement::kAny, "oneshot"),
                row(kAR, 256 << 10, 4 << 20, Placement::kInPlace, "inplace-xml"),
                row(kAR, 256 << 10, 4 << 20, Placement::kAny, "twoshot"),
                row(kAG, 0, 0, Placement::kAny, "ag")};
  // A shared boundary goes to the earlier row.
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, 256 << 10, false)->algorithm, "oneshot");
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, (256 << 10) + 1, true)->algorithm, "inplace-xml");
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, (256 << 10) + 1, false)->algorithm, "twoshot");
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, 4 << 20, false)->algorithm, "twoshot");
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, (4 << 20) + 1, false), nullptr);
  EXPECT_EQ(table.firstMatch(kAG, 8, 1, size_t(1) << 33, false)->algorithm, "ag");
  EXPECT_EQ(SelectionTable().firstMatch(kAR, 8, 1, 8, true), nullptr);
}

}  // namespace
}  // namespace flashccl
