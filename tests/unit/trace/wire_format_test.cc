#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include "snapshot_builder.h"
#include "trace/progress_snapshot.h"
#include "trace/wire_format.h"

namespace flashccl {
namespace {

using testing::collective;
using testing::SnapshotBuilder;

ProgressSnapshot sample() {
  TraceCall send = collective(TraceKind::kSend, 64, ncclInt8);
  send.peer = 1;
  send.grouped = true;
  ProgressSnapshot snapshot = SnapshotBuilder(0xabcdef, 2, 4)
                                  .history(3)
                                  .call(collective(TraceKind::kAllGather, 99, ncclBfloat16), CallState::kStarted, 7)
                                  .call(send, CallState::kEnqueued, 1)
                                  .build();
  snapshot.calls[0].state = CallState::kFailed;  // every state travels, the newest too
  snapshot.calls[1].algorithm = "nccl";
  snapshot.calls[1].stream = 0x7f00;
  snapshot.launchesStarted = 5;
  snapshot.launchesCompleted = 4;
  return snapshot;
}

TEST(SnapshotWire, RoundTrip) {
  const ProgressSnapshot before = sample();
  const std::string bytes = encodeSnapshot(before);
  ProgressSnapshot after;
  std::string error;
  ASSERT_TRUE(decodeSnapshot(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &after, &error));
  EXPECT_EQ(after.identity.commHash, 0xabcdefu);
  EXPECT_EQ(after.identity.rank, 2);
  EXPECT_EQ(after.identity.nranks, 4);
  EXPECT_EQ(after.identity.host, "h0");
  EXPECT_EQ(after.identity.pid, 1002);
  EXPECT_EQ(after.lastCollectiveSeq, 4u);
  EXPECT_EQ(after.lastP2pSeq, 1u);
  EXPECT_EQ(after.launchesStarted, 5u);
  EXPECT_EQ(after.launchesCompleted, 4u);
  ASSERT_EQ(after.calls.size(), before.calls.size());
  for (size_t i = 0; i < before.calls.size(); ++i) {
    const SnapshotCall& a = before.calls[i];
    const SnapshotCall& b = after.calls[i];
    EXPECT_EQ(a.seq, b.seq);
    EXPECT_EQ(a.call.kind, b.call.kind);
    EXPECT_EQ(a.call.count, b.call.count);
    EXPECT_EQ(a.call.dtype, b.call.dtype);
    EXPECT_EQ(a.call.op, b.call.op);
    EXPECT_EQ(a.call.peer, b.call.peer);
    EXPECT_EQ(a.call.grouped, b.call.grouped);
    EXPECT_EQ(a.algorithm, b.algorithm);
    EXPECT_EQ(a.stream, b.stream);
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.enqueuedAgoNs, b.enqueuedAgoNs);
    EXPECT_EQ(a.startedAgoNs, b.startedAgoNs);
    EXPECT_EQ(a.completedAgoNs, b.completedAgoNs);
  }
}

TEST(SnapshotWire, EveryTruncationIsRejected) {
  const std::string bytes = encodeSnapshot(sample());
  ProgressSnapshot out;
  std::string error;
  for (size_t size = 0; size < bytes.size(); ++size) {
    EXPECT_FALSE(decodeSnapshot(reinterpret_cast<const uint8_t*>(bytes.data()), size, &out, &error)) << size;
  }
  std::string longer = bytes + "x";
  EXPECT_FALSE(decodeSnapshot(reinterpret_cast<const uint8_t*>(longer.data()), longer.size(), &out, &error));
}

TEST(SnapshotWire, ImpossibleValuesAreRejected) {
  ProgressSnapshot bad = sample();
  bad.identity.rank = 4;  // of 4 ranks
  std::string bytes = encodeSnapshot(bad);
  ProgressSnapshot out;
  std::string error;
  EXPECT_FALSE(decodeSnapshot(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &out, &error));
  // A call count far beyond what any sender may send.
  ProgressSnapshot empty = sample();
  empty.calls.clear();
  std::string head = encodeSnapshot(empty);
  head.resize(head.size() - 4);
  ByteWriter count;
  count.u32(1u << 30);
  head += count.data();
  EXPECT_FALSE(decodeSnapshot(reinterpret_cast<const uint8_t*>(head.data()), head.size(), &out, &error));
}

TEST(QueryWire, RoundTripAndHeaderChecks) {
  ProgressQuery query;
  for (size_t i = 0; i < kTraceTokenBytes; ++i) query.token[i] = static_cast<uint8_t>(i * 7);
  query.askerRank = 3;
  query.waitingSeq = 1842;
  query.waitingNs = 9000000000LL;
  const std::string frame = encodeQuery(query);
  ASSERT_EQ(frame.size(), kFrameHeaderBytes + kQueryBodyBytes);
  FrameHeader header;
  ASSERT_TRUE(decodeHeader(reinterpret_cast<const uint8_t*>(frame.data()), &header));
  EXPECT_EQ(headerProblem(header, FrameType::kProgressQuery, kQueryBodyBytes), "");
  EXPECT_NE(headerProblem(header, FrameType::kProgressReply, kQueryBodyBytes), "");
  ProgressQuery back;
  ASSERT_TRUE(decodeQueryBody(reinterpret_cast<const uint8_t*>(frame.data()) + kFrameHeaderBytes,
                              kQueryBodyBytes, &back));
  EXPECT_TRUE(sameToken(back.token, query.token));
  EXPECT_EQ(back.askerRank, 3);
  EXPECT_EQ(back.waitingSeq, 1842u);
  EXPECT_EQ(back.waitingNs, 9000000000LL);

  header.length = 1u << 31;
  EXPECT_EQ(headerProblem(header, FrameType::kProgressQuery, kQueryBodyBytes),
            "announced 2147483648 bytes, at most 36 allowed");
  header.magic = 0x12345678;
  EXPECT_EQ(headerProblem(header, FrameType::kProgressQuery, kQueryBodyBytes),
            "not a flashccl frame (bad magic)");
}

TEST(TraceEndpoint, TokensAndAddresses) {
  uint8_t a[kTraceTokenBytes], b[kTraceTokenBytes];
  ASSERT_TRUE(makeTraceToken(a));
  ASSERT_TRUE(makeTraceToken(b));
  EXPECT_FALSE(sameToken(a, b));  // 128 random bits twice: equal only by a broken generator
  EXPECT_TRUE(sameToken(a, a));
  TraceEndpoint endpoint = endpointWithoutChannel(3);
  EXPECT_FALSE(hasSideChannel(endpoint));
  EXPECT_EQ(endpointAddressText(endpoint), "none");
  EXPECT_EQ(endpoint.cudaDev, 3);
  sockaddr_in in = {};
  in.sin_family = AF_INET;
  in.sin_port = htons(41234);
  in.sin_addr.s_addr = htonl(0x0a010203);
  setEndpointAddress(&endpoint, reinterpret_cast<sockaddr*>(&in));
  EXPECT_TRUE(hasSideChannel(endpoint));
  EXPECT_EQ(endpointAddressText(endpoint), "10.1.2.3:41234");
  // Every rank computes the same identifier from the same records; another job's differs.
  std::vector<TraceEndpoint> job = {endpoint, endpoint};
  std::memcpy(job[1].token, a, kTraceTokenBytes);
  EXPECT_EQ(commHashOf(job), commHashOf(std::vector<TraceEndpoint>(job)));
  std::vector<TraceEndpoint> other = job;
  std::memcpy(other[1].token, b, kTraceTokenBytes);
  EXPECT_NE(commHashOf(job), commHashOf(other));
}

}  // namespace
}  // namespace flashccl
