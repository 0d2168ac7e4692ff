// Everything that crosses the wire, with its exact byte layout and the bounds a receiver checks
// before trusting a field. Both ends run this plugin on little-endian hosts (as NCCL itself
// assumes); every field is written with an explicit width at a fixed offset.
//
// Per rail, one control socket and (TCP backend) `streams` data sockets. Every socket starts with
// a Hello naming the listen endpoint's token. On the control socket, framed control messages
// (ControlHeader + body); on a data socket, chunks (ChunkHeader + payload).
//
//   sender                                   receiver
//   isend(m)            <-- CTS(m, size, buffer keys) --   irecv(m)
//   chunks of m over any live rail  -- ChunkHeader{m, offset, length, total} + bytes -->
//                       <-- ACK(m, chunk) on the rail it came by --
//   request m done when every chunk is acknowledged; a failed rail's unacknowledged chunks are put
//   on the other rails again; the receiver drops what it already has (by message and chunk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rail_spec.h"
#include "settings.h"
#include "tcp_socket.h"

namespace flashccl::softbond {

constexpr uint8_t kWireVersion = 1;
constexpr size_t kTokenBytes = 16;
constexpr int kMaxStreams = 8;                  // TCP data sockets per rail
constexpr size_t kMinChunkBytes = 4096;
constexpr size_t kMaxChunkBytes = 4u << 20;
constexpr uint32_t kMaxChunksPerMessage = 1u << 20;  // bounds the receive window's per-message bookkeeping

// ---- the connection handle NCCL carries from listen() to connect() (128 bytes) -----------------

struct ListenHandle {
  uint8_t railCount = 0;
  BackendKind backend = BackendKind::kTcp;
  uint8_t token[kTokenBytes] = {};
  uint64_t listenId = 0;
  SockAddr rails[kMaxRailsPerBond];
};
constexpr size_t kHandleBytes = 128;
// Bytes 120..127 of the handle are connect()'s own: NCCL calls connect() again with the same
// handle until it returns a comm, and the pending connection is remembered there, as NCCL's own
// transports do.
constexpr size_t kHandleScratchOffset = 120;

void encodeHandle(const ListenHandle& handle, uint8_t out[kHandleBytes]);
bool decodeHandle(const uint8_t in[kHandleBytes], ListenHandle* handle, const char** why);

// ---- Hello: the first 64 bytes on every socket -------------------------------------------------

struct Hello {
  uint8_t rail = 0;
  uint8_t lane = 0;        // 0: control, 1..streams: data
  uint8_t laneCount = 0;
  uint8_t railCount = 0;
  BackendKind backend = BackendKind::kTcp;
  uint8_t token[kTokenBytes] = {};
  uint64_t listenId = 0;
  uint64_t connId = 0;
  uint32_t generation = 0;  // counts reconnections of this rail
  uint32_t chunkBytes = 0;
};
constexpr size_t kHelloBytes = 64;

void encodeHello(const Hello& hello, uint8_t out[kHelloBytes]);
bool decodeHello(const uint8_t in[kHelloBytes], Hello* hello, const char** why);

// ---- control messages ----------------------------------------------------------------------------

enum class ControlType : uint16_t { kPing = 1, kCts = 2, kAck = 3, kRailDown = 4, kVerbsQp = 5, kBye = 6 };
constexpr size_t kControlHeaderBytes = 8;
constexpr size_t kMaxAckEntries = 64;
constexpr size_t kMaxControlBody = 4 + kMaxAckEntries * 12;

struct ControlFrame {
  ControlType type = ControlType::kPing;
  std::vector<uint8_t> body;
};

// Receive buffer described in a CTS: where the receiver's bytes go, with a key per rail for the
// backends that write remote memory (verbs); TCP leaves the keys 0.
struct Cts {
  uint64_t message = 0;
  uint64_t capacity = 0;
  uint64_t address = 0;
  uint32_t remoteKeys[kMaxRailsPerBond] = {};
};

struct AckEntry {
  uint64_t message = 0;
  uint32_t chunk = 0;
};

struct VerbsQpInfo {
  uint32_t generation = 0;
  uint32_t qpNumber = 0;
  uint32_t packetSequence = 0;
  uint16_t lid = 0;
  uint8_t mtu = 0;           // ibv_mtu enum value
  uint8_t useGid = 0;        // RoCE / routed IB
  uint8_t gid[16] = {};
};

// Validates the header of a control frame: known type and a body size that type allows.
bool checkControlHeader(const uint8_t in[kControlHeaderBytes], ControlType* type, uint32_t* bodyBytes,
                        const char** why);

std::vector<uint8_t> encodePing(uint64_t nowMs);
std::vector<uint8_t> encodeCts(const Cts& cts);
std::vector<uint8_t> encodeAck(const AckEntry* entries, size_t count);
std::vector<uint8_t> encodeRailDown(uint8_t rail);
std::vector<uint8_t> encodeVerbsQp(const VerbsQpInfo& info);
std::vector<uint8_t> encodeBye();

bool decodeCts(const ControlFrame& frame, Cts* cts);
bool decodeAck(const ControlFrame& frame, std::vector<AckEntry>* entries);
bool decodeRailDown(const ControlFrame& frame, uint8_t* rail);
bool decodeVerbsQp(const ControlFrame& frame, VerbsQpInfo* info);

// ---- chunks --------------------------------------------------------------------------------------

struct ChunkHeader {
  uint32_t length = 0;
  uint64_t message = 0;
  uint64_t offset = 0;
  uint64_t total = 0;  // the message's size
};
constexpr size_t kChunkHeaderBytes = 32;

void encodeChunkHeader(const ChunkHeader& header, uint8_t out[kChunkHeaderBytes]);
// Checks the magic and that length <= maxChunk; the placement checks are the receiver's.
bool decodeChunkHeader(const uint8_t in[kChunkHeaderBytes], size_t maxChunk, ChunkHeader* header, const char** why);

// How a message of `total` bytes is cut: ceil(total / chunkBytes) chunks, and one empty chunk for
// an empty message (its arrival is what completes the receive).
uint32_t chunkCount(uint64_t total, size_t chunkBytes);

}  // namespace flashccl::softbond
