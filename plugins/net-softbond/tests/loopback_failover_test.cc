// Failover on one machine without root: two rails on the loopback interface (lo,lo), a sender and
// a receiver in processes of their own, and the rail failed by FLASHCCL_SOFTBOND_FAULT -- the
// switch the GPU-machine check uses. Also: strangers connecting to a listening rail are turned
// away without disturbing the transfer.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "peer_pair.h"
#include "wire_format.h"

namespace softbond_test {
namespace {

using flashccl::softbond::decodeHandle;
using flashccl::softbond::encodeHello;
using flashccl::softbond::Hello;
using flashccl::softbond::ListenHandle;

PeerSide loopbackSide(std::vector<std::pair<std::string, std::string>> extra = {}) {
  PeerSide side;
  side.env = {{"FLASHCCL_SOFTBOND_RAILS", "lo,lo"},
              {"FLASHCCL_SOFTBOND_TIMEOUT_MS", "500"},
              {"FLASHCCL_SOFTBOND_PROBE_MS", "300"}};
  side.env.insert(side.env.end(), extra.begin(), extra.end());
  return side;
}

TEST(LoopbackFailover, DarkRailFailsOverAndIsTakenBackWhenItRecovers) {
  // Rail 0 of the sender's process goes dark after 64 MB for 1.5 s: both ends stop hearing it.
  // The transfer must outlast the dark time and the rejoin (about 5 GB: seconds even on a fast
  // machine), or the rail has nothing left to carry when it is back.
  PeerSide sender = loopbackSide({{"FLASHCCL_SOFTBOND_FAULT", "rail0:after=64M:for=1500"}});
  PairOutcome run = runPeerPair(loopbackSide(), sender,
                                {"--sizes", "4M,1M,64K", "--count", "3000", "--info", "--deadline", "90"}, {}, 100);
  ASSERT_TRUE(run.bothOk()) << run.describe();
  // Not a stall beyond the failure timeout plus a second (the job sees a hiccup, not a hang).
  EXPECT_LE(PairOutcome::field(run.receiverResult, "max_gap_ms"), 500 + 1000) << run.describe();
  EXPECT_EQ(countLines(run.senderLog, {"WARN", "rail 0", "resent on rail 1", "all delivered"}), 1) << run.describe();
  EXPECT_EQ(countLines(run.senderLog, {"WARN", "rail 0", "back in service"}), 1) << run.describe();
  EXPECT_EQ(countLines(run.receiverLog, {"WARN", "rail 0", "receiving continues on rail 1"}), 1) << run.describe();
  // Back in service means carrying chunks again.
  EXPECT_EQ(countLines(run.senderLog, {"rail 0", "since it last rejoined service"}), 1) << run.describe();
  EXPECT_EQ(countLines(run.senderLog, {"rail 0", " 0 of them since it last rejoined"}), 0) << run.describe();
}

TEST(LoopbackFailover, RailWhoseSocketsFailIsReconnected) {
  PeerSide sender = loopbackSide({{"FLASHCCL_SOFTBOND_FAULT", "rail0:after=64M:reset"}});
  PairOutcome run = runPeerPair(loopbackSide(), sender,
                                {"--sizes", "4M,256K", "--count", "600", "--info", "--deadline", "90"}, {}, 100);
  ASSERT_TRUE(run.bothOk()) << run.describe();
  EXPECT_EQ(countLines(run.senderLog, {"WARN", "rail 0", "failed (test fault: sockets closed", "resent"}), 1)
      << run.describe();
  EXPECT_GE(countLines(run.senderLog, {"rail 0", "reconnected (generation"}), 1) << run.describe();
  EXPECT_GE(countLines(run.receiverLog, {"rail 0", "reconnected by the peer"}), 1) << run.describe();
  EXPECT_EQ(countLines(run.senderLog, {"WARN", "rail 0", "back in service"}), 1) << run.describe();
}

// Connects to `address` and writes `bytes` (then keeps the socket until the test ends).
int connectAndSend(const flashccl::softbond::SockAddr& address, const void* bytes, size_t length) {
  int fd = socket(address.family(), SOCK_STREAM, 0);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.length) != 0) {
    close(fd);
    return -1;
  }
  if (length) (void)!write(fd, bytes, length);
  return fd;
}

TEST(LoopbackFailover, StrangersAreTurnedAwayWithoutDisturbingTheTransfer) {
  std::vector<int> strangers;
  ListenHandle handle;
  auto attack = [&](const std::string& hex) {
    uint8_t bytes[flashccl::softbond::kHandleBytes];
    for (size_t i = 0; i < sizeof(bytes); ++i) bytes[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    const char* why = nullptr;
    ASSERT_TRUE(decodeHandle(bytes, &handle, &why)) << why;
    // 1. garbage; 2. a hello with the right listen id and a wrong token; 3. half a hello.
    std::string garbage(200, '\x5a');
    strangers.push_back(connectAndSend(handle.rails[0], garbage.data(), garbage.size()));
    Hello forged;
    forged.railCount = 2, forged.laneCount = 3, forged.rail = 0, forged.chunkBytes = 131072;
    forged.listenId = handle.listenId;
    memcpy(forged.token, handle.token, sizeof(forged.token));
    forged.token[0] ^= 1;
    uint8_t hello[flashccl::softbond::kHelloBytes];
    encodeHello(forged, hello);
    strangers.push_back(connectAndSend(handle.rails[1], hello, sizeof(hello)));
    strangers.push_back(connectAndSend(handle.rails[0], hello, 20));
    ::close(strangers.back());
  };
  PairOutcome run = runPeerPair(loopbackSide(), loopbackSide(), {"--sizes", "1M", "--count", "400", "--info"}, {}, 100,
                                attack);
  for (int fd : strangers) ::close(fd);
  ASSERT_TRUE(run.bothOk()) << run.describe();
  EXPECT_GE(countLines(run.receiverLog, {"closed a connection from", "no softbond hello"}), 1) << run.describe();
  EXPECT_GE(countLines(run.receiverLog, {"closed a connection from", "wrong token"}), 1) << run.describe();
  EXPECT_EQ(countLines(run.receiverLog, {"WARN"}), 0) << run.describe();
  EXPECT_EQ(countLines(run.senderLog, {"WARN"}), 0) << run.describe();
}

}  // namespace
}  // namespace softbond_test
