#include "trace/wire_format.h"

#include <cstring>

namespace flashccl {

void ByteWriter::text(const std::string& value, size_t maxBytes) {
  const size_t size = value.size() < maxBytes ? value.size() : maxBytes;
  u16(static_cast<uint16_t>(size));
  out_.append(value, 0, size);
}

uint64_t ByteReader::fixed(int bytes) {
  if (!ok_ || size_ - offset_ < static_cast<size_t>(bytes)) {
    ok_ = false;
    return 0;
  }
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(data_[offset_ + i]) << (8 * i);
  offset_ += bytes;
  return value;
}

bool ByteReader::bytes(void* out, size_t size) {
  if (!ok_ || size_ - offset_ < size) {
    ok_ = false;
    return false;
  }
  std::memcpy(out, data_ + offset_, size);
  offset_ += size;
  return true;
}

std::string ByteReader::text(size_t maxBytes) {
  const size_t size = u16();
  if (!ok_ || size > maxBytes || size_ - offset_ < size) {
    ok_ = false;
    return std::string();
  }
  std::string value(reinterpret_cast<const char*>(data_ + offset_), size);
  offset_ += size;
  return value;
}

std::string encodeHeader(const FrameHeader& header) {
  ByteWriter out;
  out.u32(header.magic);
  out.u16(header.version);
  out.u16(header.type);
  out.u32(header.length);
  out.u32(header.reserved);
  return out.data();
}

bool decodeHeader(const uint8_t bytes[kFrameHeaderBytes], FrameHeader* header) {
  ByteReader in(bytes, kFrameHeaderBytes);
  header->magic = in.u32();
  header->version = in.u16();
  header->type = in.u16();
  header->length = in.u32();
  header->reserved = in.u32();
  return in.atEnd();
}

std::string headerProblem(const FrameHeader& header, FrameType expected, size_t maxLength) {
  if (header.magic != kWireMagic) return "not a flashccl frame (bad magic)";
  if (header.version != kWireVersion) {
    return "protocol version " + std::to_string(header.version) + ", expected " +
           std::to_string(kWireVersion);
  }
  if (header.type != static_cast<uint16_t>(expected)) {
    return "frame type " + std::to_string(header.type) + ", expected " +
           std::to_string(static_cast<uint16_t>(expected));
  }
  if (header.length > maxLength) {
    return "announced " + std::to_string(header.length) + " bytes, at most " +
           std::to_string(maxLength) + " allowed";
  }
  return std::string();
}

std::string encodeQuery(const ProgressQuery& query) {
  FrameHeader header;
  header.type = static_cast<uint16_t>(FrameType::kProgressQuery);
  header.length = kQueryBodyBytes;
  ByteWriter body;
  body.bytes(query.token, kTraceTokenBytes);
  body.i32(query.askerRank);
  body.u64(query.waitingSeq);
  body.i64(query.waitingNs);
  return encodeHeader(header) + body.data();
}

bool decodeQueryBody(const uint8_t* body, size_t size, ProgressQuery* query) {
  if (size != kQueryBodyBytes) return false;
  ByteReader in(body, size);
  in.bytes(query->token, kTraceTokenBytes);
  query->askerRank = in.i32();
  query->waitingSeq = in.u64();
  query->waitingNs = in.i64();
  return in.atEnd();
}

}  // namespace flashccl
