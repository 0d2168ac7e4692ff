// The geometry of the node phases (algo/node_blocks.h) and of the algorithms across nodes
// (algo/hierarchy_plan.h): every byte of a buffer is moved by exactly one (window, local rank),
// whatever the count, type size and node size, and the one-node geometry is what the direct
// kernels always used.
#include <gtest/gtest.h>

#include <vector>

#include "algo/hierarchy_plan.h"
#include "algo/node_blocks.h"

namespace flashccl {
namespace {

TEST(NodeBlocks, WholeBlocksAreTheOneNodeLayout) {
  const NodeBlocks b = wholeBlocks(1000, 4);
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(windowBytes(b, j), 1000u);
    EXPECT_EQ(windowOffset(b, 0, j), 1000u * j);
  }
}

TEST(NodeBlocks, ChunksOfAWindow) {
  EXPECT_EQ(chunkBytesAt(100, 0, 64), 64u);
  EXPECT_EQ(chunkBytesAt(100, 64, 64), 36u);
  EXPECT_EQ(chunkBytesAt(100, 128, 64), 0u);
  EXPECT_EQ(chunkBytesAt(0, 0, 64), 0u);
}

TEST(NodeBlocks, UnevenSplitLeavesTheLastBlocksShortOrEmpty) {
  const NodeBlocks b{1, 0, 0, 256, 300, 0, 256};
  EXPECT_EQ(windowBytes(b, 0), 256u);
  EXPECT_EQ(windowBytes(b, 1), 44u);
  EXPECT_EQ(windowBytes(b, 2), 0u);
  NodeBlocks second = b;
  second.window = 256;
  EXPECT_EQ(windowBytes(second, 0), 0u);
  EXPECT_EQ(windowBytes(second, 1), 0u);
}

TEST(CutWindows, Bounds) {
  EXPECT_EQ(cutWindows(0, 1 << 20, 0, 8, 256).count, 0);
  Windows w = cutWindows(100, 1 << 20, 0, 8, 256);
  EXPECT_EQ(w.count, 1);
  EXPECT_GE(w.bytes, 100u);
  w = cutWindows(64u << 20, 1 << 20, 0, 8, 256);
  EXPECT_EQ(w.count, 8);
  EXPECT_EQ(w.bytes, 8u << 20);
  w = cutWindows(64u << 20, 1 << 20, 3u << 20, 8, 256);  // the staging cap forces more windows
  EXPECT_EQ(w.bytes, 3u << 20);
  EXPECT_EQ(w.count, 22);
  w = cutWindows(1000, 1, 100, 8, 256);  // a cap below the alignment still makes progress
  EXPECT_EQ(w.bytes, 256u);
  EXPECT_EQ(w.count, 4);
}

// Marks what one (window, block) moves; every byte of `total` must be marked once.
struct Coverage {
  explicit Coverage(size_t total) : marks(total, 0) {}
  void mark(size_t offset, size_t bytes) {
    if (bytes == 0) return;  // an empty block's offset may lie past the end; nothing reads it
    ASSERT_LE(offset + bytes, marks.size());
    for (size_t i = 0; i < bytes; ++i) ++marks[offset + i];
  }
  void expectEachOnce() const {
    for (size_t i = 0; i < marks.size(); ++i) ASSERT_EQ(marks[i], 1) << "byte " << i;
  }
  std::vector<int> marks;
};

TEST(HierarchyGeometry, AllReduceShardsAndWindowsCoverTheBufferOnce) {
  for (int g : {2, 3, 4, 8}) {
    for (size_t elem : {1u, 2u, 4u, 8u}) {
      for (size_t count : {size_t(1), size_t(2), size_t(3), size_t(1001), size_t(65537), (size_t(3) << 20) / elem + 7}) {
        const size_t bytes = count * elem;
        const size_t shard = allreduceShardBytes(count, elem, g);
        ASSERT_EQ(shard % kHierAlign, 0u);
        const Windows w = cutWindows(shard, kHierMinWindowBytes, 0, kHierMaxWindows, kHierAlign);
        ASSERT_GE(w.count, 1);
        ASSERT_LE(w.count, kHierMaxWindows);
        NodeBlocks b{1, 0, 0, shard, bytes, 0, w.bytes};
        Coverage covered(bytes);
        for (int k = 0; k < w.count; ++k) {
          b.window = static_cast<size_t>(k) * w.bytes;
          for (int j = 0; j < g; ++j) {
            const size_t len = windowBytes(b, j);
            ASSERT_EQ(len % elem, 0u) << "a window cuts an element";
            covered.mark(windowOffset(b, 0, j), len);
          }
        }
        covered.expectEachOnce();
      }
    }
  }
}

// ReduceScatter across nodes: window k of node group m's blocks, for every local rank, covers the
// input once; this rank's window of every group lands back to back, as NCCL's ReduceScatter
// wants its input.
TEST(HierarchyGeometry, ReduceScatterGroupsCoverTheInputOnce) {
  for (int nodes : {2, 3}) {
    for (int g : {2, 4}) {
      for (size_t rankBytes : {size_t(4), size_t(1000), (size_t(5) << 20) + 12}) {
        const size_t nodeBytes = rankBytes * g;
        const Windows w = cutWindows(rankBytes, kHierMinWindowBytes, 2u << 20, kHierMaxWindows, kHierAlign);
        Coverage input(nodeBytes * nodes);
        for (int k = 0; k < w.count; ++k) {
          const size_t offset = static_cast<size_t>(k) * w.bytes;
          const size_t len = rankBytes - offset < w.bytes ? rankBytes - offset : w.bytes;
          const NodeBlocks b{nodes, nodeBytes, len, rankBytes, nodeBytes, offset, w.bytes};
          for (int m = 0; m < nodes; ++m) {
            for (int j = 0; j < g; ++j) {
              ASSERT_EQ(windowBytes(b, j), len);
              input.mark(windowOffset(b, m, j), windowBytes(b, j));
            }
            EXPECT_EQ(m * b.ownGroupStride, m * len);
          }
        }
        input.expectEachOnce();
      }
    }
  }
}

// AllGather across nodes: this node's blocks whole, then every other node's in runs around it,
// window by window: the output is written once, and this rank's input of every group is its
// block of that node (the rail fills it).
TEST(HierarchyGeometry, AllGatherRunsCoverTheOutputOnce) {
  for (int nodes : {2, 3, 4}) {
    for (int node = 0; node < nodes; ++node) {
      const int g = 2, local = 1;
      const size_t rankBytes = (size_t(3) << 20) + 40;
      const size_t nodeBytes = rankBytes * g;
      const NodeBlocks whole{1, nodeBytes, nodeBytes, rankBytes, nodeBytes, 0, rankBytes};
      Coverage output(nodeBytes * nodes);
      for (int j = 0; j < g; ++j) output.mark(node * nodeBytes + windowOffset(whole, 0, j), windowBytes(whole, j));
      const Windows w = cutWindows(rankBytes, kHierMinWindowBytes, 0, kHierMaxWindows, kHierAlign);
      for (int k = 0; k < w.count; ++k) {
        const int runs[2][2] = {{0, node}, {node + 1, nodes}};
        for (const auto& run : runs) {
          if (run[0] >= run[1]) continue;
          NodeBlocks b = whole;
          b.groups = run[1] - run[0];
          b.window = static_cast<size_t>(k) * w.bytes;
          b.bytes = w.bytes;
          const size_t base = run[0] * nodeBytes;
          for (int group = 0; group < b.groups; ++group) {
            // In place: this rank's input window of the group is its own block's window.
            EXPECT_EQ((run[0] * g + local) * rankBytes + b.window + group * b.ownGroupStride,
                      base + windowOffset(b, group, local));
            for (int j = 0; j < g; ++j) output.mark(base + windowOffset(b, group, j), windowBytes(b, j));
          }
        }
      }
      output.expectEachOnce();
    }
  }
}

}  // namespace
}  // namespace flashccl
