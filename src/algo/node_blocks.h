// Where the blocks of one intra-node phase lie: the direct kernels' geometry, shared by the
// one-node algorithms (one group, whole blocks) and the phases of the algorithms across nodes
// (several groups, one window of each block per launch).
//
// On the blocked side of a phase (a reduce-scatter's input, an all-gather's output), block j of
// group g -- local rank j's part -- starts at g * groupStride + j * stride and holds
// min(stride, extent - j * stride) bytes: an uneven split leaves the last blocks short or empty.
// A launch moves the window [window, window + bytes) of every block, cut to the block. On this
// rank's side (a reduce-scatter's output, an all-gather's input) only this rank's window of each
// group exists, `ownGroupStride` apart. Every rank computes the same lengths for every block, so
// what a rank pushes to a peer is exactly what the peer expects.
#pragma once

#include <cstddef>

#include "base/host_device.h"

namespace flashccl {

struct NodeBlocks {
  int groups;
  size_t groupStride;     // blocked side: from one group to the next
  size_t ownGroupStride;  // this rank's side: from one group's window to the next
  size_t stride;          // blocked side: from one local rank's block to the next
  size_t extent;          // blocked side: the bytes of one group's blocks together
  size_t window;          // where the window starts inside every block
  size_t bytes;           // the window's size (the most any block holds in it)
};

// The one-node phases: `nranks` whole blocks of `bytes`, back to back, one group.
FLASHCCL_HOST_DEVICE inline NodeBlocks wholeBlocks(size_t bytes, int nranks) {
  return NodeBlocks{1, 0, 0, bytes, bytes * static_cast<size_t>(nranks), 0, bytes};
}

// Bytes of local rank j's block inside the window (0 when the block ends before it).
FLASHCCL_HOST_DEVICE inline size_t windowBytes(const NodeBlocks& b, int j) {
  const size_t start = static_cast<size_t>(j) * b.stride;
  if (start >= b.extent) return 0;
  const size_t block = b.extent - start < b.stride ? b.extent - start : b.stride;
  if (b.window >= block) return 0;
  return block - b.window < b.bytes ? block - b.window : b.bytes;
}

// Blocked side: where local rank j's window of group g starts.
FLASHCCL_HOST_DEVICE inline size_t windowOffset(const NodeBlocks& b, int group, int j) {
  return static_cast<size_t>(group) * b.groupStride + static_cast<size_t>(j) * b.stride + b.window;
}

// The part of a `total`-byte window that the chunk at `offset` covers: at most `chunk` bytes,
// 0 past the end.
FLASHCCL_HOST_DEVICE inline size_t chunkBytesAt(size_t total, size_t offset, size_t chunk) {
  if (offset >= total) return 0;
  return total - offset < chunk ? total - offset : chunk;
}

}  // namespace flashccl

namespace flashccl {

// How a pipelined phase cuts `total` bytes into windows: at most `maxWindows` of them unless
// `maxBytes` (0: no cap) forces more, none smaller than `minBytes` unless the whole is, every
// window but the last a multiple of `align`. count 0 for nothing to cut.
struct Windows {
  size_t bytes;
  int count;
};

FLASHCCL_HOST_DEVICE inline Windows cutWindows(size_t total, size_t minBytes, size_t maxBytes, int maxWindows,
                                               size_t align) {
  if (total == 0) return Windows{0, 0};
  size_t window = (total + maxWindows - 1) / maxWindows;
  if (window < minBytes) window = minBytes;
  window = (window + align - 1) / align * align;
  if (maxBytes != 0 && window > maxBytes) window = maxBytes / align * align;
  if (window == 0) window = align;
  return Windows{window, static_cast<int>((total + window - 1) / window)};
}

}  // namespace flashccl
