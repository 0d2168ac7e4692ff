// The peer buffer layout: regions in order, apart, aligned and inside the buffer, for every rank
// count.

#include <gtest/gtest.h>

#include <string>

#include "algo/node_blocks.h"
#include "algo/node_phases.h"
#include "transport/p2p/buffer_layout.h"
#include "transport/p2p/device_comm.h"

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

// The small buffer a communicator starts with (docs/design.md, "Memory grows with use"): flags for
// its one lane, the headers, LL slots for the small calls; under 1 MiB up to 4 ranks (CUDA packs
// allocations that small into shared 2 MiB pages), under 2 MiB for 8.
TEST(SmallLayout, HasFlagsForItsLanesAndIsUnderOneMiBUpToFourRanks) {
  for (int n = 2; n <= kMaxPeerRanks; ++n) {
    const BufferLayout full = layoutFor(64u << 20, n);
    BufferLayout small{};
    const char* why = nullptr;
    ASSERT_TRUE(computeSmallLayout(full, n, 64 << 10, &small, &why)) << why;
    const size_t peers = n - 1;
    EXPECT_EQ(full.flagLanes, kMaxLanes);
    EXPECT_EQ(small.flagLanes, small.lanes);
    // The last flag line of each area ends before the next area.
    EXPECT_LE(readyLineOffset(small, kChannels - 1, kMaxPeerRanks - 2, small.lanes - 1) + kFlagLineBytes,
              small.ackOffset);
    EXPECT_LE(ackLineOffset(small, kChannels - 1, kMaxPeerRanks - 2, small.lanes - 1) + kFlagLineBytes,
              small.headerOffset);
    EXPECT_LE(callHeaderOffset(small, kMaxPeerRanks - 1, kCallHeaderEntries - 1) + kCallHeaderBytes, small.llOffset);
    EXPECT_GE(llPayloadCapacity(small), size_t(64) << 10) << n;
    EXPECT_LE(small.llSlotBytes, full.llSlotBytes) << n;
    EXPECT_LE(small.llOffset + 2 * peers * small.llSlotBytes, small.ll128Offset) << n;
    EXPECT_LE(small.ll128Offset + 2 * peers * small.ll128SlotBytes, small.dataOffset) << n;
    EXPECT_EQ(small.totalBytes,
              small.dataOffset + kChannels * peers * small.lanes * small.slots * small.chunkBytes) << n;
    EXPECT_GE(small.chunkBytes, kMinChunkBytes);
    EXPECT_GE(small.lanes, 1);
    for (size_t offset : {small.headerOffset, small.llOffset, small.ll128Offset, small.dataOffset, small.llSlotBytes,
                          small.chunkBytes}) {
      EXPECT_EQ(offset % 128, 0u) << n;
    }
    // What docs/environment.md and docs/troubleshooting.md say it costs.
    EXPECT_LT(small.totalBytes, n <= 4 ? size_t(1) << 20 : size_t(2) << 20) << n;
    EXPECT_LT(small.totalBytes, n == 2 ? size_t(300) << 10 : size_t(1) << 30) << n;
  }
}

// A call up to the small size takes the same path (packets or chunks) on both layouts, so a
// communicator routes it the same before and after it grows.
TEST(SmallLayout, SmallCallsTakeTheSamePathOnBothLayouts) {
  for (int n = 2; n <= kMaxPeerRanks; ++n) {
    DeviceComm full{}, small{};
    full.nranks = small.nranks = n;
    full.layout = layoutFor(64u << 20, n);
    const char* why = nullptr;
    const size_t limit = 64 << 10;
    ASSERT_TRUE(computeSmallLayout(full.layout, n, limit, &small.layout, &why)) << why;
    for (size_t bytes = 1; bytes <= limit; bytes = bytes * 3 + 5) {
      EXPECT_EQ(oneshotFits(bytes, full), oneshotFits(bytes, small)) << n << " " << bytes;
      EXPECT_TRUE(oneshotFits(bytes, small)) << n << " " << bytes;
      const NodeBlocks blocks = wholeBlocks(bytes, n);
      EXPECT_EQ(phaseUsesPackets(blocks, full), phaseUsesPackets(blocks, small)) << n << " " << bytes;
    }
  }
}

TEST(SmallLayout, RefusedWhenTheFullBuffersSlotsAreSmaller) {
  const BufferLayout full = layoutFor(1u << 20, 8);  // FLASHCCL_BUFFER_BYTES=1M: 12 KiB LL slots
  BufferLayout small{};
  const char* why = nullptr;
  EXPECT_FALSE(computeSmallLayout(full, 8, 64 << 10, &small, &why));
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("LL slots"), std::string::npos) << why;
  EXPECT_TRUE(computeSmallLayout(full, 8, 1024, &small, &why)) << why;
}

}  // namespace
}  // namespace flashccl
