// The peer buffer layout: regions in order, apart, aligned and inside the buffer, for every rank
// count; and the call signature that lets kernels notice ranks disagreeing on a call.
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "base/coll_call.h"
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

TEST(CallSignature, DiffersWhenRanksWouldDisagree) {
  const CollCall base{CollKind::kAllReduce, nullptr, nullptr, 1000, ncclFloat32, ncclSum, 0, nullptr, nullptr};
  CollCall other = base;
  other.send = &other;  // buffers and streams are each rank's own business
  other.stream = reinterpret_cast<cudaStream_t>(0x10);
  EXPECT_EQ(callSignature(base), callSignature(other));
  other = base;
  other.count = 1001;
  EXPECT_NE(callSignature(base), callSignature(other));
  other = base;
  other.dtype = ncclBfloat16;
  EXPECT_NE(callSignature(base), callSignature(other));
  other = base;
  other.op = ncclMax;
  EXPECT_NE(callSignature(base), callSignature(other));
  other = base;
  other.kind = CollKind::kAllGather;
  EXPECT_NE(callSignature(base), callSignature(other));
  // PreMulSum handles are per communicator and may be numbered differently on each rank.
  CollCall a = base, b = base;
  a.op = static_cast<ncclRedOp_t>(ncclNumOps);
  b.op = static_cast<ncclRedOp_t>(ncclNumOps + 3);
  EXPECT_EQ(callSignature(a), callSignature(b));
}

TEST(CallSignature, UniqueOverEveryKindTypeOpAndManyCounts) {
  std::set<uint64_t> seen;
  size_t made = 0;
  std::vector<size_t> counts;
  for (size_t c = 1; c <= 4096; ++c) counts.push_back(c);
  for (int shift = 13; shift < 40; ++shift) {
    counts.push_back(size_t{1} << shift);
    counts.push_back((size_t{1} << shift) + 1);
    counts.push_back((size_t{1} << shift) - 3);
  }
  for (int kind = 0; kind < kNumCollKinds; ++kind) {
    for (int dtype = 0; dtype < ncclNumTypes; ++dtype) {
      for (int op = 0; op <= ncclNumOps; ++op) {
        for (size_t count : counts) {
          const CollCall call{static_cast<CollKind>(kind), nullptr, nullptr, count,
                              static_cast<ncclDataType_t>(dtype), static_cast<ncclRedOp_t>(op), 0,
                              nullptr, nullptr};
          seen.insert(callSignature(call));
          ++made;
        }
      }
    }
  }
  EXPECT_EQ(seen.size(), made);
}

}  // namespace
}  // namespace flashccl
