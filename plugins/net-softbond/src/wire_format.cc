#include "wire_format.h"

#include <arpa/inet.h>

#include <cstring>

namespace flashccl::softbond {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the wire format is little-endian");

constexpr uint32_t kHandleMagic = 0x444e4253;  // "SBND"
constexpr uint32_t kHelloMagic = 0x49484253;   // "SBHI"
constexpr uint32_t kChunkMagic = 0x4b434253;   // "SBCK"
constexpr size_t kRailRecordBytes = 20;
constexpr size_t kHandleRailsOffset = 32;

template <typename T>
void put(uint8_t* out, size_t offset, T value) {
  memcpy(out + offset, &value, sizeof(T));
}

template <typename T>
T get(const uint8_t* in, size_t offset) {
  T value;
  memcpy(&value, in + offset, sizeof(T));
  return value;
}

bool validBackend(uint8_t value) {
  return value == static_cast<uint8_t>(BackendKind::kTcp) || value == static_cast<uint8_t>(BackendKind::kVerbs);
}

std::vector<uint8_t> frame(ControlType type, size_t bodyBytes) {
  std::vector<uint8_t> out(kControlHeaderBytes + bodyBytes, 0);
  put<uint16_t>(out.data(), 0, static_cast<uint16_t>(type));
  put<uint32_t>(out.data(), 4, static_cast<uint32_t>(bodyBytes));
  return out;
}

}  // namespace

void encodeHandle(const ListenHandle& handle, uint8_t out[kHandleBytes]) {
  memset(out, 0, kHandleBytes);
  put<uint32_t>(out, 0, kHandleMagic);
  out[4] = kWireVersion;
  out[5] = handle.railCount;
  out[6] = static_cast<uint8_t>(handle.backend);
  memcpy(out + 8, handle.token, kTokenBytes);
  put<uint64_t>(out, 24, handle.listenId);
  for (int r = 0; r < handle.railCount && r < kMaxRailsPerBond; ++r) {
    uint8_t* record = out + kHandleRailsOffset + r * kRailRecordBytes;
    const SockAddr& address = handle.rails[r];
    put<uint16_t>(record, 2, address.port());
    if (address.family() == AF_INET) {
      record[0] = 4;
      memcpy(record + 4, &reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_addr, 4);
    } else {
      record[0] = 6;
      memcpy(record + 4, &reinterpret_cast<const sockaddr_in6*>(&address.storage)->sin6_addr, 16);
    }
  }
}

bool decodeHandle(const uint8_t in[kHandleBytes], ListenHandle* handle, const char** why) {
  if (get<uint32_t>(in, 0) != kHandleMagic) return *why = "not a softbond handle", false;
  if (in[4] != kWireVersion) return *why = "handle from another softbond version", false;
  ListenHandle parsed;
  parsed.railCount = in[5];
  if (parsed.railCount < 1 || parsed.railCount > kMaxRailsPerBond) return *why = "bad rail count", false;
  if (!validBackend(in[6])) return *why = "unknown backend", false;
  parsed.backend = static_cast<BackendKind>(in[6]);
  memcpy(parsed.token, in + 8, kTokenBytes);
  parsed.listenId = get<uint64_t>(in, 24);
  for (int r = 0; r < parsed.railCount; ++r) {
    const uint8_t* record = in + kHandleRailsOffset + r * kRailRecordBytes;
    SockAddr& address = parsed.rails[r];
    if (record[0] == 4) {
      auto* v4 = reinterpret_cast<sockaddr_in*>(&address.storage);
      v4->sin_family = AF_INET;
      memcpy(&v4->sin_addr, record + 4, 4);
      address.length = sizeof(sockaddr_in);
    } else if (record[0] == 6) {
      auto* v6 = reinterpret_cast<sockaddr_in6*>(&address.storage);
      v6->sin6_family = AF_INET6;
      memcpy(&v6->sin6_addr, record + 4, 16);
      address.length = sizeof(sockaddr_in6);
    } else {
      return *why = "bad address family", false;
    }
    address.setPort(get<uint16_t>(record, 2));
  }
  *handle = parsed;
  return true;
}

void encodeHello(const Hello& hello, uint8_t out[kHelloBytes]) {
  memset(out, 0, kHelloBytes);
  put<uint32_t>(out, 0, kHelloMagic);
  out[4] = kWireVersion;
  out[5] = hello.rail;
  out[6] = hello.lane;
  out[7] = hello.laneCount;
  memcpy(out + 8, hello.token, kTokenBytes);
  put<uint64_t>(out, 24, hello.listenId);
  put<uint64_t>(out, 32, hello.connId);
  put<uint32_t>(out, 40, hello.generation);
  put<uint32_t>(out, 44, hello.chunkBytes);
  out[48] = static_cast<uint8_t>(hello.backend);
  out[49] = hello.railCount;
}

bool decodeHello(const uint8_t in[kHelloBytes], Hello* hello, const char** why) {
  if (get<uint32_t>(in, 0) != kHelloMagic) return *why = "no softbond hello", false;
  if (in[4] != kWireVersion) return *why = "hello from another softbond version", false;
  Hello parsed;
  parsed.rail = in[5];
  parsed.lane = in[6];
  parsed.laneCount = in[7];
  memcpy(parsed.token, in + 8, kTokenBytes);
  parsed.listenId = get<uint64_t>(in, 24);
  parsed.connId = get<uint64_t>(in, 32);
  parsed.generation = get<uint32_t>(in, 40);
  parsed.chunkBytes = get<uint32_t>(in, 44);
  parsed.railCount = in[49];
  if (!validBackend(in[48])) return *why = "unknown backend", false;
  parsed.backend = static_cast<BackendKind>(in[48]);
  if (parsed.railCount < 1 || parsed.railCount > kMaxRailsPerBond || parsed.rail >= parsed.railCount)
    return *why = "bad rail", false;
  if (parsed.laneCount < 1 || parsed.laneCount > 1 + kMaxStreams || parsed.lane >= parsed.laneCount)
    return *why = "bad lane", false;
  if (parsed.chunkBytes < kMinChunkBytes || parsed.chunkBytes > kMaxChunkBytes || parsed.chunkBytes % 4096)
    return *why = "bad chunk size", false;
  *hello = parsed;
  return true;
}

bool checkControlHeader(const uint8_t in[kControlHeaderBytes], ControlType* type, uint32_t* bodyBytes,
                        const char** why) {
  uint16_t rawType = get<uint16_t>(in, 0);
  uint32_t bytes = get<uint32_t>(in, 4);
  if (get<uint16_t>(in, 2) != 0) return *why = "reserved control bits set", false;
  bool sizeOk = false;
  switch (static_cast<ControlType>(rawType)) {
    case ControlType::kPing: sizeOk = bytes == 8; break;
    case ControlType::kCts: sizeOk = bytes == 24 + 4 * kMaxRailsPerBond; break;
    case ControlType::kAck: sizeOk = bytes >= 4 + 12 && bytes <= kMaxControlBody && (bytes - 4) % 12 == 0; break;
    case ControlType::kRailDown: sizeOk = bytes == 8; break;
    case ControlType::kVerbsQp: sizeOk = bytes == 32; break;
    case ControlType::kBye: sizeOk = bytes == 0; break;
    default: return *why = "unknown control type", false;
  }
  if (!sizeOk) return *why = "control body size does not fit its type", false;
  *type = static_cast<ControlType>(rawType);
  *bodyBytes = bytes;
  return true;
}

std::vector<uint8_t> encodePing(uint64_t nowMs) {
  std::vector<uint8_t> out = frame(ControlType::kPing, 8);
  put<uint64_t>(out.data(), kControlHeaderBytes, nowMs);
  return out;
}

std::vector<uint8_t> encodeCts(const Cts& cts) {
  std::vector<uint8_t> out = frame(ControlType::kCts, 24 + 4 * kMaxRailsPerBond);
  uint8_t* body = out.data() + kControlHeaderBytes;
  put<uint64_t>(body, 0, cts.message);
  put<uint64_t>(body, 8, cts.capacity);
  put<uint64_t>(body, 16, cts.address);
  for (int r = 0; r < kMaxRailsPerBond; ++r) put<uint32_t>(body, 24 + 4 * r, cts.remoteKeys[r]);
  return out;
}

std::vector<uint8_t> encodeAck(const AckEntry* entries, size_t count) {
  std::vector<uint8_t> out = frame(ControlType::kAck, 4 + 12 * count);
  uint8_t* body = out.data() + kControlHeaderBytes;
  put<uint32_t>(body, 0, static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i) {
    put<uint64_t>(body, 4 + 12 * i, entries[i].message);
    put<uint32_t>(body, 12 + 12 * i, entries[i].chunk);
  }
  return out;
}

std::vector<uint8_t> encodeRailDown(uint8_t rail) {
  std::vector<uint8_t> out = frame(ControlType::kRailDown, 8);
  out[kControlHeaderBytes] = rail;
  return out;
}

std::vector<uint8_t> encodeVerbsQp(const VerbsQpInfo& info) {
  std::vector<uint8_t> out = frame(ControlType::kVerbsQp, 32);
  uint8_t* body = out.data() + kControlHeaderBytes;
  put<uint32_t>(body, 0, info.generation);
  put<uint32_t>(body, 4, info.qpNumber);
  put<uint32_t>(body, 8, info.packetSequence);
  put<uint16_t>(body, 12, info.lid);
  body[14] = info.mtu;
  body[15] = info.useGid;
  memcpy(body + 16, info.gid, 16);
  return out;
}

std::vector<uint8_t> encodeBye() { return frame(ControlType::kBye, 0); }

bool decodeCts(const ControlFrame& frame, Cts* cts) {
  if (frame.type != ControlType::kCts || frame.body.size() != 24 + 4 * kMaxRailsPerBond) return false;
  const uint8_t* body = frame.body.data();
  cts->message = get<uint64_t>(body, 0);
  cts->capacity = get<uint64_t>(body, 8);
  cts->address = get<uint64_t>(body, 16);
  for (int r = 0; r < kMaxRailsPerBond; ++r) cts->remoteKeys[r] = get<uint32_t>(body, 24 + 4 * r);
  return true;
}

bool decodeAck(const ControlFrame& frame, std::vector<AckEntry>* entries) {
  if (frame.type != ControlType::kAck || frame.body.size() < 4) return false;
  uint32_t count = get<uint32_t>(frame.body.data(), 0);
  if (count == 0 || count > kMaxAckEntries || frame.body.size() != 4 + 12 * size_t{count}) return false;
  entries->resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    (*entries)[i].message = get<uint64_t>(frame.body.data(), 4 + 12 * i);
    (*entries)[i].chunk = get<uint32_t>(frame.body.data(), 12 + 12 * i);
  }
  return true;
}

bool decodeRailDown(const ControlFrame& frame, uint8_t* rail) {
  if (frame.type != ControlType::kRailDown || frame.body.size() != 8) return false;
  if (frame.body[0] >= kMaxRailsPerBond) return false;
  *rail = frame.body[0];
  return true;
}

bool decodeVerbsQp(const ControlFrame& frame, VerbsQpInfo* info) {
  if (frame.type != ControlType::kVerbsQp || frame.body.size() != 32) return false;
  const uint8_t* body = frame.body.data();
  info->generation = get<uint32_t>(body, 0);
  info->qpNumber = get<uint32_t>(body, 4);
  info->packetSequence = get<uint32_t>(body, 8);
  info->lid = get<uint16_t>(body, 12);
  info->mtu = body[14];
  info->useGid = body[15];
  memcpy(info->gid, body + 16, 16);
  return info->mtu >= 1 && info->mtu <= 5 && info->qpNumber < (1u << 24) && info->packetSequence < (1u << 24);
}

void encodeChunkHeader(const ChunkHeader& header, uint8_t out[kChunkHeaderBytes]) {
  put<uint32_t>(out, 0, kChunkMagic);
  put<uint32_t>(out, 4, header.length);
  put<uint64_t>(out, 8, header.message);
  put<uint64_t>(out, 16, header.offset);
  put<uint64_t>(out, 24, header.total);
}

bool decodeChunkHeader(const uint8_t in[kChunkHeaderBytes], size_t maxChunk, ChunkHeader* header, const char** why) {
  if (get<uint32_t>(in, 0) != kChunkMagic) return *why = "bad chunk magic", false;
  ChunkHeader parsed;
  parsed.length = get<uint32_t>(in, 4);
  parsed.message = get<uint64_t>(in, 8);
  parsed.offset = get<uint64_t>(in, 16);
  parsed.total = get<uint64_t>(in, 24);
  if (parsed.length > maxChunk) return *why = "chunk longer than agreed", false;
  *header = parsed;
  return true;
}

uint32_t chunkCount(uint64_t total, size_t chunkBytes) {
  if (total == 0) return 1;
  return static_cast<uint32_t>((total + chunkBytes - 1) / chunkBytes);
}

}  // namespace flashccl::softbond
