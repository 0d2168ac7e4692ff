// Where things live inside each rank's communication buffer. Every rank computes the same layout
// from the same inputs, so an offset computed here is valid in any peer's buffer.
//
//   [ ready flags | ack flags | call headers | LL packet slots | LL128 line slots | chunk slots ]
//
// - Call headers: for each rank, the last kCallHeaderEntries calls it launched (launch number and
//   what the call was), written by that rank into every buffer at kernel start. No kernel
//   consumes a peer's data before the peer's header for the same launch matches its own
//   (algo/device/launch_protocol.cuh).
// - LL packet slots: for each source peer and launch parity, room for LL packets (8 data bytes +
//   two 4-byte flags in one 16-byte store). Small collectives push their data here; parity
//   double-buffering lets a new launch start while a peer still reads the previous one.
// - LL128 line slots: the same per (source peer, parity) scheme for 128-byte lines (120 data
//   bytes + an 8-byte flag), used only by the MSCCL executor's LL128 protocol. They are kept
//   apart from the LL slots because an LL reader must never see LL128 data words where it looks
//   for its flags (and vice versa): each region only ever holds its own packet format.
// - Chunk slots: for each of 2 channels, source peer, lane and slot, one chunk of `chunkBytes`.
//   Large collectives stream through them: the sender fills a slot and raises its ready flag in
//   the receiver's buffer; the receiver consumes it and raises an ack flag in the sender's buffer.
// - Flags are 64-bit counters that only grow (chunk number + 1), one 128-byte line per
//   (channel, peer, lane), so flags written by different GPUs never share a line.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/host_device.h"

namespace flashccl {

// The fast path serves up to this many ranks per communicator (one NVLink domain). Larger
// communicators go to NCCL.
constexpr int kMaxPeerRanks = 8;
constexpr int kMaxLanes = 64;         // lanes = thread blocks per role in the chunked kernels
constexpr int kMaxSlots = 16;         // chunk slots per lane (pipeline depth); 16 flags per line
constexpr int kChannels = 2;          // two independent streams of chunks (e.g. reduce, gather)
constexpr size_t kFlagLineBytes = 128;
constexpr size_t kMinChunkBytes = 4096;
constexpr int kCallHeaderEntries = 4;
constexpr size_t kCallHeaderBytes = 32;  // four 8-byte words {launch tag, 32 payload bits}

// Local counters: [direction send/recv][channel][peer rank][lane].
constexpr int kChunkCounterCount = 2 * kChannels * kMaxPeerRanks * kMaxLanes;

struct BufferLayout {
  size_t readyOffset;    // ready flags: [channel][source peer index][lane] lines of kMaxSlots
  size_t ackOffset;      // ack flags:   [channel][destination peer index][lane] lines
  int flagLanes;         // lanes per (channel, peer) in both flag areas: kMaxLanes, 1 when small
  size_t headerOffset;   // call headers: [rank][kCallHeaderEntries] of kCallHeaderBytes
  size_t llOffset;       // LL slots:    [source peer index][parity] of llSlotBytes
  size_t llSlotBytes;    // bytes of packets per (source, parity); payload is half of it
  size_t ll128Offset;    // LL128 slots: [source peer index][parity] of ll128SlotBytes
  size_t ll128SlotBytes; // bytes of lines per (source, parity); payload is 120/128 of it
  size_t dataOffset;     // chunk slots: [channel][source peer index][lane][slot] of chunkBytes
  size_t chunkBytes;     // bytes per chunk slot (multiple of 16, >= kMinChunkBytes)
  int lanes;             // lanes with slots (<= kMaxLanes)
  int slots;             // slots per lane (<= kMaxSlots)
  size_t totalBytes;     // bytes used, <= the buffer
};

struct BufferLayoutRequest {
  size_t bufferBytes;    // the whole buffer (FLASHCCL_BUFFER_BYTES)
  int nranks;
  int lanes;             // wanted lanes (capped by what fits)
  int slots;             // wanted slots per lane
  double llFraction;     // share of the buffer for LL packet slots
  double ll128Fraction;  // share of the buffer for LL128 line slots
};

// Fills *layout; false (with *why) when the buffer is too small for even the minimum layout.
bool computeBufferLayout(const BufferLayoutRequest& request, BufferLayout* layout,
                         const char** why);

// The layout a communicator starts with (docs/design.md, "Memory grows with use"): flag areas for
// its one lane, the call headers, LL slots just large enough for calls of up to `smallCallBytes`,
// the smallest LL128 slots and one lane of one 4 KiB chunk slot. Every kernel runs correctly on
// it (a chunked kernel would stream its few bytes through that one lane; dispatch grows the buffer
// before any does); larger calls wait until the buffer grows to `full`. False (with *why) when `full` could not
// serve the same small calls the same way (its LL slots are smaller): then the whole buffer is
// mapped at set-up. Every rank computes the same answer from the same inputs.
bool computeSmallLayout(const BufferLayout& full, int nranks, size_t smallCallBytes, BufferLayout* layout,
                        const char** why);

// Index of `source` among the peers of `receiver` (0 .. nranks-2): slots are kept per peer, not
// per rank, so no space is spent on a rank's slot for itself.
FLASHCCL_HOST_DEVICE inline int peerIndex(int receiver, int source, int nranks) {
  return (source - receiver + nranks) % nranks - 1;
}

FLASHCCL_HOST_DEVICE inline size_t readyLineOffset(const BufferLayout& l, int channel, int peerIdx,
                                                   int lane) {
  return l.readyOffset +
         ((static_cast<size_t>(channel) * (kMaxPeerRanks - 1) + peerIdx) * l.flagLanes + lane) *
             kFlagLineBytes;
}

FLASHCCL_HOST_DEVICE inline size_t ackLineOffset(const BufferLayout& l, int channel, int peerIdx,
                                                 int lane) {
  return l.ackOffset +
         ((static_cast<size_t>(channel) * (kMaxPeerRanks - 1) + peerIdx) * l.flagLanes + lane) *
             kFlagLineBytes;
}

FLASHCCL_HOST_DEVICE inline size_t callHeaderOffset(const BufferLayout& l, int rank, uint64_t launch) {
  return l.headerOffset +
         (static_cast<size_t>(rank) * kCallHeaderEntries + launch % kCallHeaderEntries) * kCallHeaderBytes;
}

FLASHCCL_HOST_DEVICE inline size_t llSlotOffset(const BufferLayout& l, int peerIdx, int parity) {
  return l.llOffset + (static_cast<size_t>(peerIdx) * 2 + parity) * l.llSlotBytes;
}

FLASHCCL_HOST_DEVICE inline size_t chunkSlotOffset(const BufferLayout& l, int nranks, int channel,
                                                   int peerIdx, int lane, int slot) {
  const size_t index =
      ((static_cast<size_t>(channel) * (nranks - 1) + peerIdx) * l.lanes + lane) * l.slots + slot;
  return l.dataOffset + index * l.chunkBytes;
}

FLASHCCL_HOST_DEVICE inline size_t ll128SlotOffset(const BufferLayout& l, int peerIdx, int parity) {
  return l.ll128Offset + (static_cast<size_t>(peerIdx) * 2 + parity) * l.ll128SlotBytes;
}

// Largest payload (bytes) one LL slot can carry: 8 of every 16 bytes are data.
FLASHCCL_HOST_DEVICE inline size_t llPayloadCapacity(const BufferLayout& l) {
  return l.llSlotBytes / 2;
}

// Index into DeviceComm::chunkCounters.
FLASHCCL_HOST_DEVICE inline int chunkCounterIndex(int isRecv, int channel, int peer, int lane) {
  return ((isRecv * kChannels + channel) * kMaxPeerRanks + peer) * kMaxLanes + lane;
}

}  // namespace flashccl
