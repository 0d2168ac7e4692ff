// The peer buffer layout: regions in order, apart, aligned and inside the buffer, for every rank
// count.

#include <gtest/gtest.h>

#include "transport/p2p/buffer_layout.h"

namespace flashccl {
namespace {

BufferLayout layoutFor(size_t bytes, int nranks) {
  BufferLayout l{};
  const char* why = nullptr;
  EXPECT_TRUE(computeBufferLayout({bytes, nranks, 64, 4, 0.25, 0.0625}, &l, &why)) << why;
  return l;
}

TEST(BufferLayout, RegionsAreOrderedApartAlignedAndInside) {
  for (int n = 2; n <= kMaxPeerRanks; ++n) {
    const size_t bytes = 64u << 20;
    const BufferLayout l = layoutFor(bytes, n);
    const size_t peers = n - 1;
    EXPECT_LE(l.ackOffset + (l.ackOffset - l.readyOffset), l.headerOffset) << n;
    EXPECT_LE(callHeaderOffset(l, kMaxPeerRanks - 1, kCallHeaderEntries - 1) + kCallHeaderBytes, l.llOffset) << n;
    EXPECT_LE(l.llOffset + 2 * peers * l.llSlotBytes, l.ll128Offset) << n;
    EXPECT_LE(l.ll128Offset + 2 * peers * l.ll128SlotBytes, l.dataOffset) << n;
    EXPECT_LE(l.totalBytes, bytes) << n;
    EXPECT_GT(l.ll128SlotBytes, 0u) << n;
    for (size_t offset : {l.headerOffset, l.llOffset, l.ll128Offset, l.dataOffset, l.llSlotBytes, l.ll128SlotBytes,
                          l.chunkBytes}) {
      EXPECT_EQ(offset % 128, 0u) << n;
    }
  }
}

TEST(BufferLayout, CallHeaderEntriesAreDistinctAndCycle) {
  const BufferLayout l = layoutFor(64u << 20, 8);
  EXPECT_EQ(callHeaderOffset(l, 3, 5), callHeaderOffset(l, 3, 5 + kCallHeaderEntries));
  EXPECT_NE(callHeaderOffset(l, 3, 5), callHeaderOffset(l, 3, 6));
  EXPECT_NE(callHeaderOffset(l, 3, 5), callHeaderOffset(l, 4, 5));
  EXPECT_EQ(callHeaderOffset(l, 0, 0), l.headerOffset);
}

}  // namespace
}  // namespace flashccl
