#include "transport/p2p/buffer_layout.h"

#include <algorithm>

namespace flashccl {

namespace {
size_t roundDown(size_t value, size_t multiple) { return value / multiple * multiple; }
size_t roundUp(size_t value, size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// Ready and ack flags for `lanes` lanes of every (channel, peer), then the call headers: sets the
// offsets up to llOffset. The peer stride is the largest communicator's, so a flag's offset never
// depends on the rank count.
void placeFlagsAndHeaders(int lanes, BufferLayout* l) {
  const size_t flagBytes = static_cast<size_t>(kChannels) * (kMaxPeerRanks - 1) * lanes * kFlagLineBytes;
  l->flagLanes = lanes;
  l->readyOffset = 0;
  l->ackOffset = flagBytes;
  l->headerOffset = roundUp(2 * flagBytes, 4096);
  l->llOffset = l->headerOffset + roundUp(static_cast<size_t>(kMaxPeerRanks) * kCallHeaderEntries * kCallHeaderBytes, 4096);
}
}  // namespace

bool computeBufferLayout(const BufferLayoutRequest& request, BufferLayout* layout,
                         const char** why) {
  BufferLayout l{};
  if (request.nranks < 2 || request.nranks > kMaxPeerRanks) {
    *why = "rank count outside 2..8";
    return false;
  }
  const int peers = request.nranks - 1;
  placeFlagsAndHeaders(kMaxLanes, &l);
  if (request.bufferBytes <= l.llOffset) {
    *why = "buffer smaller than its flag area";
    return false;
  }
  const size_t rest = request.bufferBytes - l.llOffset;
  const double fraction = std::min(std::max(request.llFraction, 0.0), 0.9);
  const double fraction128 = std::min(std::max(request.ll128Fraction, 0.0), 0.9 - fraction);
  // 4 KiB multiples keep every slot 16-byte (vector) and 128-byte (line) aligned.
  l.llSlotBytes = roundDown(static_cast<size_t>(rest * fraction) / (2 * peers), 4096);
  l.ll128Offset = roundUp(l.llOffset + l.llSlotBytes * 2 * peers, 4096);
  l.ll128SlotBytes = roundDown(static_cast<size_t>(rest * fraction128) / (2 * peers), 4096);
  l.dataOffset = roundUp(l.ll128Offset + l.ll128SlotBytes * 2 * peers, 4096);
  if (l.llSlotBytes < 4096 || l.dataOffset >= request.bufferBytes) {
    *why = "buffer too small for LL packet slots";
    return false;
  }
  const size_t dataBytes = request.bufferBytes - l.dataOffset;
  l.slots = std::max(1, std::min(request.slots, kMaxSlots));
  l.lanes = std::max(1, std::min(request.lanes, kMaxLanes));
  // Fewer lanes before smaller chunks: a lane with tiny chunks spends its time on flags.
  while (true) {
    const size_t perChunk = dataBytes / (static_cast<size_t>(kChannels) * peers * l.lanes * l.slots);
    l.chunkBytes = std::min<size_t>(roundDown(perChunk, 4096), 1u << 20);
    if (l.chunkBytes >= kMinChunkBytes) break;
    if (l.lanes > 1) {
      l.lanes /= 2;
    } else if (l.slots > 1) {
      l.slots /= 2;
    } else {
      *why = "buffer too small for chunk slots";
      return false;
    }
  }
  l.totalBytes = l.dataOffset + static_cast<size_t>(kChannels) * peers * l.lanes * l.slots *
                                    l.chunkBytes;
  *layout = l;
  return true;
}

bool computeSmallLayout(const BufferLayout& full, int nranks, size_t smallCallBytes, BufferLayout* layout,
                        const char** why) {
  if (nranks < 2 || nranks > kMaxPeerRanks) {
    *why = "rank count outside 2..8";
    return false;
  }
  const size_t peers = static_cast<size_t>(nranks - 1);
  BufferLayout l = full;
  // One lane: its flags are all a chunked kernel could touch here (224 KiB less than the full
  // layout's 64 lanes; the small buffer is its own allocation, so its offsets may differ).
  placeFlagsAndHeaders(1, &l);
  // A packet carries 8 data bytes in 16; the slack covers the 8-byte rounding of every rank's block.
  l.llSlotBytes = roundUp(2 * smallCallBytes + 16 * kMaxPeerRanks, 4096);
  if (l.llSlotBytes > full.llSlotBytes) {
    // A call the small slots carry as packets would take another path on the full layout.
    *why = "the full buffer's LL slots are smaller than the small calls need";
    return false;
  }
  l.ll128Offset = roundUp(l.llOffset + l.llSlotBytes * 2 * peers, 4096);
  l.ll128SlotBytes = 4096;
  l.dataOffset = roundUp(l.ll128Offset + l.ll128SlotBytes * 2 * peers, 4096);
  // Never streamed through: a call that would use chunks grows the buffer first. One minimal slot
  // keeps every field of a layout valid.
  l.lanes = 1;  // placeFlagsAndHeaders(1) has flags for this one lane only
  l.slots = 1;
  l.chunkBytes = kMinChunkBytes;
  l.totalBytes = l.dataOffset + static_cast<size_t>(kChannels) * peers * l.lanes * l.slots * l.chunkBytes;
  if (l.totalBytes >= full.totalBytes) {
    *why = "the small buffer would be no smaller than the full one";
    return false;
  }
  *layout = l;
  return true;
}

}  // namespace flashccl
