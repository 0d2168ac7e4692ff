#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "log_capture.h"
#include "loopback_socket.h"
#include "snapshot_builder.h"
#include "trace/side_channel.h"
#include "trace/side_channel_client.h"
#include "trace/trace_clock.h"

namespace flashccl {
namespace {

using testing::LogCapture;

const char kRefused[] = "trace side channel: refused";

class FakeAnswerer : public ProgressAnswerer {
 public:
  FakeAnswerer() { makeTraceToken(token); }
  bool answer(const ProgressQuery& query, std::string* reply) override {
    if (!sameToken(query.token, token)) return false;
    lastWaitingSeq.store(query.waitingSeq);
    *reply = encodeSnapshot(testing::SnapshotBuilder(77, 1, 2).history(3).build());
    answered.fetch_add(1);
    return true;
  }
  uint8_t token[kTraceTokenBytes];
  std::atomic<int> answered{0};
  std::atomic<uint64_t> lastWaitingSeq{0};
};

class SideChannel : public ::testing::Test {
 protected:
  void SetUp() override { start(SideChannelLimits()); }
  void start(const SideChannelLimits& limits) {
    server_.reset();
    std::string error;
    server_ = SideChannelServer::start(testing::loopbackInterface(), &answerer_, limits, &error);
    ASSERT_NE(server_, nullptr) << error;
    server_->describe(&endpoint_);
    endpoint_.magic = kTraceEndpointMagic;
    std::memcpy(endpoint_.token, answerer_.token, kTraceTokenBytes);
  }

  PeerQuery goodQuery() const {
    PeerQuery query;
    query.endpoint = endpoint_;
    std::memcpy(query.query.token, answerer_.token, kTraceTokenBytes);
    query.query.askerRank = 0;
    return query;
  }

  // A raw connection to the server, for what a well-behaved client never sends.
  int connectRaw() const {
    sockaddr_storage addr;
    socklen_t length;
    endpointSockaddr(endpoint_, &addr, &length);
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), length), 0);
    return fd;
  }
  // Whether the server closed `fd` within `ms` (reads and drops anything it sent).
  static bool closedByServer(int fd, int ms) {
    const int64_t end = monotonicNs() + static_cast<int64_t>(ms) * 1000000;
    char buffer[256];
    while (monotonicNs() < end) {
      pollfd p = {fd, POLLIN, 0};
      if (poll(&p, 1, 50) > 0) {
        const ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
        if (got <= 0) return true;
      }
    }
    return false;
  }
  bool goodClientAnswered(int64_t* tookMs = nullptr) {
    const int64_t start = monotonicNs();
    const std::vector<QueryOutcome> outcomes = queryPeers({goodQuery()}, 2000);
    if (tookMs) *tookMs = (monotonicNs() - start) / 1000000;
    return outcomes[0].kind == QueryOutcome::Kind::kAnswered && outcomes[0].snapshot.identity.commHash == 77;
  }

  FakeAnswerer answerer_;
  std::unique_ptr<SideChannelServer> server_;
  TraceEndpoint endpoint_;
};

TEST_F(SideChannel, AnswersAPeerWithTheToken) {
  PeerQuery query = goodQuery();
  query.query.waitingSeq = 12;
  query.query.waitingNs = 5;
  const std::vector<QueryOutcome> outcomes = queryPeers({query}, 2000);
  ASSERT_EQ(outcomes[0].kind, QueryOutcome::Kind::kAnswered) << outcomes[0].detail;
  EXPECT_EQ(outcomes[0].snapshot.identity.rank, 1);
  EXPECT_EQ(outcomes[0].snapshot.lastCollectiveSeq, 3u);
  EXPECT_EQ(answerer_.lastWaitingSeq.load(), 12u);
}

TEST_F(SideChannel, WrongTokenIsRefusedWithOneLine) {
  LogCapture log;
  PeerQuery query = goodQuery();
  query.query.token[0] ^= 1;
  const std::vector<QueryOutcome> outcomes = queryPeers({query}, 2000);
  EXPECT_EQ(outcomes[0].kind, QueryOutcome::Kind::kClosed);
  EXPECT_EQ(answerer_.answered.load(), 0);
  EXPECT_TRUE(goodClientAnswered());
  EXPECT_EQ(log.count(kRefused), 1) << log.text();
  EXPECT_EQ(log.count("wrong token"), 1);
}

TEST_F(SideChannel, GarbageTruncationOversizeAndPortScansAreRefused) {
  LogCapture log;
  {  // garbage
    const int fd = connectRaw();
    const std::string junk(52, '\x5a');
    send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
    EXPECT_TRUE(closedByServer(fd, 2000));
    close(fd);
  }
  {  // a truncated frame: half a header, then the peer closes
    const int fd = connectRaw();
    const std::string frame = encodeQuery(goodQuery().query);
    send(fd, frame.data(), 10, MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
    EXPECT_TRUE(closedByServer(fd, 2000));
    close(fd);
  }
  {  // a body bigger than any query
    const int fd = connectRaw();
    FrameHeader header;
    header.type = static_cast<uint16_t>(FrameType::kProgressQuery);
    header.length = 1u << 30;
    const std::string frame = encodeHeader(header);
    send(fd, frame.data(), frame.size(), MSG_NOSIGNAL);
    EXPECT_TRUE(closedByServer(fd, 2000));
    close(fd);
  }
  {  // a port scan: connect, close
    const int fd = connectRaw();
    close(fd);
  }
  // The server is still there for a real peer.
  EXPECT_TRUE(goodClientAnswered());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(log.count(kRefused), 4) << log.text();
  EXPECT_EQ(log.count("bad magic"), 1);
  EXPECT_EQ(log.count("truncated frame: 10 of"), 1);
  EXPECT_EQ(log.count("announced 1073741824 bytes"), 1);
  EXPECT_EQ(log.count("closed without sending a query"), 1);
}

TEST_F(SideChannel, ASlowSenderNeitherStallsOthersNorStays) {
  SideChannelLimits limits;
  limits.requestDeadlineMs = 800;
  start(limits);
  LogCapture log;
  const int slow = connectRaw();
  const std::string frame = encodeQuery(goodQuery().query);
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    for (size_t i = 0; i < frame.size() && !stop.load(); ++i) {
      send(slow, frame.data() + i, 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  int64_t tookMs = 0;
  EXPECT_TRUE(goodClientAnswered(&tookMs));
  EXPECT_LT(tookMs, 500);  // served while the slow one trickles
  EXPECT_TRUE(closedByServer(slow, 3000));
  stop.store(true);
  trickle.join();
  close(slow);
  EXPECT_EQ(log.count("too slow"), 1) << log.text();
  EXPECT_EQ(answerer_.answered.load(), 1);
}

TEST_F(SideChannel, ConnectionsBeyondTheCapAreClosedAndTheCapFrees) {
  SideChannelLimits limits;
  limits.maxConnections = 3;
  limits.requestDeadlineMs = 500;
  start(limits);
  LogCapture log;
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(connectRaw());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int extra = connectRaw();
  EXPECT_TRUE(closedByServer(extra, 1000));
  close(extra);
  EXPECT_EQ(log.count("too many connections"), 1) << log.text();
  // The idle ones reach their deadline; then a real peer gets through again.
  for (int fd : idle) EXPECT_TRUE(closedByServer(fd, 2000));
  for (int fd : idle) close(fd);
  EXPECT_TRUE(goodClientAnswered());
}

TEST(SideChannelClient, SaysWhyAPeerDidNotAnswer) {
  // Nothing listens: refused. A listener that never accepts: timeout. No endpoint: said so.
  PeerQuery gone, silent, none;
  close(testing::loopbackSocket(/*listening=*/false, &gone.endpoint));
  const int deaf = testing::loopbackSocket(/*listening=*/true, &silent.endpoint);
  none.endpoint = endpointWithoutChannel(0);

  const int64_t start = monotonicNs();
  const std::vector<QueryOutcome> outcomes = queryPeers({gone, silent, none, silent}, 600);
  const int64_t tookMs = (monotonicNs() - start) / 1000000;
  close(deaf);
  EXPECT_EQ(outcomes[0].kind, QueryOutcome::Kind::kRefused);
  EXPECT_EQ(outcomes[0].detail, "process gone: connection refused");
  EXPECT_EQ(outcomes[1].kind, QueryOutcome::Kind::kTimeout);
  EXPECT_EQ(outcomes[2].kind, QueryOutcome::Kind::kNoEndpoint);
  EXPECT_EQ(outcomes[3].kind, QueryOutcome::Kind::kTimeout);
  // Both silent peers waited in parallel: one timeout, not two.
  EXPECT_GE(tookMs, 550);
  EXPECT_LT(tookMs, 1100);
}

TEST(SideChannelClient, RefusesAnOversizedReply) {
  // A fake "peer" that accepts and announces a reply far beyond the bound.
  PeerQuery query;
  const int listener = testing::loopbackSocket(/*listening=*/true, &query.endpoint);
  std::thread liar([listener] {
    const int fd = accept(listener, nullptr, nullptr);
    char query[kFrameHeaderBytes + kQueryBodyBytes];
    recv(fd, query, sizeof(query), MSG_WAITALL);
    FrameHeader header;
    header.type = static_cast<uint16_t>(FrameType::kProgressReply);
    header.length = 1u << 30;
    const std::string frame = encodeHeader(header);
    send(fd, frame.data(), frame.size(), MSG_NOSIGNAL);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    close(fd);
  });
  const std::vector<QueryOutcome> outcomes = queryPeers({query}, 2000);
  liar.join();
  close(listener);
  EXPECT_EQ(outcomes[0].kind, QueryOutcome::Kind::kBadReply);
  EXPECT_EQ(outcomes[0].detail, "announced 1073741824 bytes, at most 262144 allowed");
}

}  // namespace
}  // namespace flashccl
