// Every message's encoding, and the bounds a receiver enforces before trusting a field.
#include <gtest/gtest.h>

#include <cstring>

#include "control_channel.h"
#include "wire_format.h"

namespace flashccl::softbond {
namespace {

Hello sampleHello() {
  Hello hello;
  hello.rail = 1;
  hello.lane = 2;
  hello.laneCount = 3;
  hello.railCount = 2;
  hello.backend = BackendKind::kTcp;
  for (size_t i = 0; i < kTokenBytes; ++i) hello.token[i] = static_cast<uint8_t>(i * 7);
  hello.listenId = 0x1122334455667788ull;
  hello.connId = 0x99aabbccddeeff00ull;
  hello.generation = 5;
  hello.chunkBytes = 128 << 10;
  return hello;
}

TEST(WireFormat, HelloRoundTrips) {
  uint8_t bytes[kHelloBytes];
  encodeHello(sampleHello(), bytes);
  Hello back;
  const char* why = nullptr;
  ASSERT_TRUE(decodeHello(bytes, &back, &why)) << why;
  EXPECT_EQ(back.rail, 1);
  EXPECT_EQ(back.lane, 2);
  EXPECT_EQ(back.laneCount, 3);
  EXPECT_EQ(back.connId, 0x99aabbccddeeff00ull);
  EXPECT_EQ(back.generation, 5u);
  EXPECT_EQ(memcmp(back.token, sampleHello().token, kTokenBytes), 0);
}

TEST(WireFormat, HelloOutOfBoundsIsRefused) {
  const char* why = nullptr;
  Hello back;
  auto refused = [&](auto mutate) {
    Hello hello = sampleHello();
    mutate(hello);
    uint8_t bytes[kHelloBytes];
    encodeHello(hello, bytes);
    return !decodeHello(bytes, &back, &why);
  };
  EXPECT_TRUE(refused([](Hello& h) { h.rail = 2; }));               // rail >= railCount
  EXPECT_TRUE(refused([](Hello& h) { h.railCount = 5; }));
  EXPECT_TRUE(refused([](Hello& h) { h.lane = 3; }));               // lane >= laneCount
  EXPECT_TRUE(refused([](Hello& h) { h.laneCount = 10; }));
  EXPECT_TRUE(refused([](Hello& h) { h.chunkBytes = 1000; }));
  EXPECT_TRUE(refused([](Hello& h) { h.chunkBytes = 64 << 20; }));
  EXPECT_TRUE(refused([](Hello& h) { h.backend = static_cast<BackendKind>(7); }));
  uint8_t bytes[kHelloBytes];
  encodeHello(sampleHello(), bytes);
  bytes[0] ^= 1;
  EXPECT_FALSE(decodeHello(bytes, &back, &why));
}

TEST(WireFormat, HandleRoundTripsAndFitsNcclsBuffer) {
  static_assert(kHandleBytes == NCCL_NET_HANDLE_MAXSIZE);
  ListenHandle handle;
  handle.railCount = 2;
  handle.listenId = 42;
  handle.token[3] = 9;
  for (int r = 0; r < 2; ++r) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&handle.rails[r].storage);
    v4->sin_family = AF_INET;
    v4->sin_addr.s_addr = htonl(0x0a000001 + r);
    handle.rails[r].length = sizeof(sockaddr_in);
    handle.rails[r].setPort(static_cast<uint16_t>(4000 + r));
  }
  uint8_t bytes[kHandleBytes];
  encodeHandle(handle, bytes);
  for (size_t i = kHandleScratchOffset; i < kHandleBytes; ++i) EXPECT_EQ(bytes[i], 0) << "connect()'s scratch bytes";
  ListenHandle back;
  const char* why = nullptr;
  ASSERT_TRUE(decodeHandle(bytes, &back, &why)) << why;
  EXPECT_EQ(back.railCount, 2);
  EXPECT_EQ(back.listenId, 42u);
  EXPECT_EQ(back.token[3], 9);
  EXPECT_EQ(back.rails[1].str(), "10.0.0.2:4001");
}

TEST(WireFormat, ControlFramesRoundTrip) {
  Cts cts;
  cts.message = 7;
  cts.capacity = 1 << 20;
  cts.address = 0xdeadbeef;
  cts.remoteKeys[1] = 77;
  AckEntry acks[2] = {{3, 4}, {5, 6}};
  VerbsQpInfo qp;
  qp.qpNumber = 0x1234;
  qp.mtu = 5;
  std::vector<uint8_t> stream;
  for (const std::vector<uint8_t>& frame : {encodePing(11), encodeCts(cts), encodeAck(acks, 2), encodeRailDown(1),
                                            encodeVerbsQp(qp), encodeBye()})
    stream.insert(stream.end(), frame.begin(), frame.end());
  // Fed one byte at a time: frames are reassembled across any split.
  ControlReader reader;
  std::vector<ControlFrame> frames;
  const char* why = nullptr;
  for (uint8_t byte : stream) ASSERT_TRUE(reader.feed(&byte, 1, &frames, &why)) << why;
  ASSERT_EQ(frames.size(), 6u);
  Cts ctsBack;
  ASSERT_TRUE(decodeCts(frames[1], &ctsBack));
  EXPECT_EQ(ctsBack.message, 7u);
  EXPECT_EQ(ctsBack.address, 0xdeadbeefu);
  EXPECT_EQ(ctsBack.remoteKeys[1], 77u);
  std::vector<AckEntry> acksBack;
  ASSERT_TRUE(decodeAck(frames[2], &acksBack));
  ASSERT_EQ(acksBack.size(), 2u);
  EXPECT_EQ(acksBack[1].message, 5u);
  EXPECT_EQ(acksBack[1].chunk, 6u);
  uint8_t rail = 0;
  ASSERT_TRUE(decodeRailDown(frames[3], &rail));
  EXPECT_EQ(rail, 1);
  VerbsQpInfo qpBack;
  ASSERT_TRUE(decodeVerbsQp(frames[4], &qpBack));
  EXPECT_EQ(qpBack.qpNumber, 0x1234u);
  EXPECT_EQ(frames[5].type, ControlType::kBye);
}

TEST(WireFormat, ControlHeaderBoundsTheBodyBeforeAnythingIsAllocated) {
  ControlReader reader;
  std::vector<ControlFrame> frames;
  const char* why = nullptr;
  uint8_t header[kControlHeaderBytes] = {3, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f};  // ACK of 2 GB
  EXPECT_FALSE(reader.feed(header, sizeof(header), &frames, &why));
  uint8_t unknown[kControlHeaderBytes] = {99, 0, 0, 0, 8, 0, 0, 0};
  ControlReader other;
  EXPECT_FALSE(other.feed(unknown, sizeof(unknown), &frames, &why));
  EXPECT_TRUE(frames.empty());
}

TEST(WireFormat, ChunkHeaderLongerThanAgreedIsRefused) {
  ChunkHeader header;
  header.length = 256 << 10;
  uint8_t bytes[kChunkHeaderBytes];
  encodeChunkHeader(header, bytes);
  ChunkHeader back;
  const char* why = nullptr;
  EXPECT_FALSE(decodeChunkHeader(bytes, 128 << 10, &back, &why));
  EXPECT_TRUE(decodeChunkHeader(bytes, 256 << 10, &back, &why));
  EXPECT_EQ(chunkCount(0, 4096), 1u);
  EXPECT_EQ(chunkCount(4096, 4096), 1u);
  EXPECT_EQ(chunkCount(4097, 4096), 2u);
}

}  // namespace
}  // namespace flashccl::softbond
