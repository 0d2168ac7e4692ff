// SelectionRow / SelectionTable matching: bounds, unbounded rows, rank and node counts.
#include <gtest/gtest.h>

#include "topo/selection_table.h"

namespace flashccl {
namespace {

SelectionRow row(CollKind kind, size_t minBytes, size_t maxBytes, const char* algorithm) {
  SelectionRow r;
  r.kind = kind;
  r.minBytes = minBytes;
  r.maxBytes = maxBytes;
  r.algorithm = algorithm;
  r.source = algorithm;
  return r;
}

constexpr CollKind kAR = CollKind::kAllReduce;
constexpr CollKind kAG = CollKind::kAllGather;

TEST(SelectionRow, BoundsAreInclusive) {
  const SelectionRow r = row(kAR, 1024, 4096, "a");
  EXPECT_FALSE(r.matches(kAR, 2, 1, 1023));
  EXPECT_TRUE(r.matches(kAR, 2, 1, 1024));
  EXPECT_TRUE(r.matches(kAR, 2, 1, 4096));
  EXPECT_FALSE(r.matches(kAR, 2, 1, 4097));
}

TEST(SelectionRow, MaxBytesZeroIsUnbounded) {
  const SelectionRow r = row(kAR, 64, 0, "a");
  EXPECT_FALSE(r.matches(kAR, 2, 1, 63));
  EXPECT_TRUE(r.matches(kAR, 2, 1, 64));
  EXPECT_TRUE(r.matches(kAR, 2, 1, size_t(1) << 40));
  EXPECT_TRUE(r.matches(kAR, 2, 1, ~size_t(0)));
  const SelectionRow all = row(kAR, 0, 0, "all");
  EXPECT_TRUE(all.matches(kAR, 2, 1, 0));
}

TEST(SelectionRow, KindRanksAndNodes) {
  SelectionRow r = row(kAR, 0, 0, "a");
  EXPECT_FALSE(r.matches(kAG, 2, 1, 8));
  EXPECT_TRUE(r.matches(kAR, 7, 3, 8));  // 0 = any
  r.nranks = 8;
  r.nnodes = 1;
  EXPECT_TRUE(r.matches(kAR, 8, 1, 8));
  EXPECT_FALSE(r.matches(kAR, 4, 1, 8));
  EXPECT_FALSE(r.matches(kAR, 8, 2, 8));
}

TEST(SelectionTable, FirstMatchInOrder) {
  SelectionTable table;
  table.rows = {row(kAR, 0, 256 << 10, "oneshot"),
                row(kAR, 256 << 10, 4 << 20, "twoshot"),
                row(kAG, 0, 0, "ag")};
  // A shared boundary goes to the earlier row.
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, 256 << 10)->algorithm, "oneshot");
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, (256 << 10) + 1)->algorithm, "twoshot");
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, 4 << 20)->algorithm, "twoshot");
  EXPECT_EQ(table.firstMatch(kAR, 8, 1, (4 << 20) + 1), nullptr);
  EXPECT_EQ(table.firstMatch(kAG, 8, 1, size_t(1) << 33)->algorithm, "ag");
  EXPECT_EQ(SelectionTable().firstMatch(kAR, 8, 1, 8), nullptr);
}

}  // namespace
}  // namespace flashccl
