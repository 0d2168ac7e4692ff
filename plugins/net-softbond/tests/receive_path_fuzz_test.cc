// The receive path fed random and truncated input: control frames, chunk frames on a data socket,
// and whole connections that authenticate and then talk garbage. Nothing may crash, hang, write
// outside a posted buffer, or grow memory without bound; a violation only ever fails the rail.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "control_channel.h"
#include "net_api.h"
#include "plugin_loader.h"
#include "receive_window.h"
#include "tcp_data_path.h"
#include "wire_format.h"

namespace flashccl::softbond {
namespace {

using Clock = std::chrono::steady_clock;

long maxRssKb() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

std::vector<uint8_t> randomBytes(std::mt19937_64& rng, size_t length) {
  std::vector<uint8_t> bytes(length);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

TEST(ReceivePathFuzz, ControlReaderTakesRandomBytesInRandomPieces) {
  std::mt19937_64 rng(1);
  const long before = maxRssKb();
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> input = randomBytes(rng, rng() % 2048);
    // Half the rounds start with a plausible header, so bodies get parsed too.
    if (round % 2 && input.size() >= kControlHeaderBytes) {
      input[0] = static_cast<uint8_t>(1 + rng() % 6), input[1] = 0, input[2] = input[3] = 0;
      uint32_t body = static_cast<uint32_t>(rng() % 1000);
      memcpy(input.data() + 4, &body, 4);
    }
    ControlReader reader;
    std::vector<ControlFrame> frames;
    const char* why = nullptr;
    size_t at = 0;
    bool ok = true;
    while (ok && at < input.size()) {
      size_t piece = std::min<size_t>(input.size() - at, 1 + rng() % 64);
      ok = reader.feed(input.data() + at, piece, &frames, &why);
      at += piece;
    }
    for (const ControlFrame& frame : frames) {
      ASSERT_LE(frame.body.size(), kMaxControlBody);
      Cts cts;
      std::vector<AckEntry> acks;
      uint8_t rail;
      VerbsQpInfo qp;
      decodeCts(frame, &cts);
      if (decodeAck(frame, &acks)) ASSERT_LE(acks.size(), kMaxAckEntries);
      if (decodeRailDown(frame, &rail)) ASSERT_LT(rail, kMaxRailsPerBond);
      decodeVerbsQp(frame, &qp);
    }
  }
  EXPECT_LT(maxRssKb() - before, 16 * 1024) << "control parsing grew memory";
}

TEST(ReceivePathFuzz, HelloAndHandleDecodersOnRandomBytes) {
  std::mt19937_64 rng(2);
  for (int round = 0; round < 100000; ++round) {
    std::vector<uint8_t> bytes = randomBytes(rng, kHandleBytes);
    // Keep the magic and version now and then, so the field checks are reached.
    if (round % 2) bytes[0] = 0x53, bytes[1] = 0x42, bytes[2] = 0x48, bytes[3] = 0x49, bytes[4] = kWireVersion;
    Hello hello;
    const char* why = nullptr;
    if (decodeHello(bytes.data(), &hello, &why)) {
      ASSERT_LT(hello.rail, hello.railCount);
      ASSERT_LE(hello.railCount, kMaxRailsPerBond);
      ASSERT_LT(hello.lane, hello.laneCount);
      ASSERT_LE(hello.chunkBytes, kMaxChunkBytes);
    }
    if (round % 2) bytes[0] = 0x53, bytes[1] = 0x42, bytes[2] = 0x4e, bytes[3] = 0x44;
    ListenHandle handle;
    if (decodeHandle(bytes.data(), &handle, &why)) ASSERT_LE(handle.railCount, kMaxRailsPerBond);
  }
}

// A receiving connection's placement rules (ReceiveWindow) behind the interface a data path uses.
class WindowSink : public ChunkSink {
 public:
  explicit WindowSink(size_t chunkBytes) : window(chunkBytes) {}
  Placement locate(const ChunkHeader& header, char** destination) override {
    return window.locate(header, destination);
  }
  bool stillWanted(const ChunkHeader& header) override { return window.stillWanted(header); }
  void arrived(int, const ChunkHeader& header, bool placed) override {
    uint64_t bytes = 0;
    if (placed && window.markPlaced(header, &bytes)) ++completed;
    ++chunks;
  }
  bool arrivedRemote(int, const ChunkHeader&) override { return false; }
  ReceiveWindow window;
  int completed = 0;
  int chunks = 0;
};

constexpr size_t kChunk = 16 << 10;
constexpr size_t kGuard = 4096;
constexpr uint8_t kGuardByte = 0xa5;

std::vector<uint8_t> frameFor(uint64_t message, uint64_t offset, uint64_t total, std::mt19937_64& rng) {
  ChunkHeader header;
  header.message = message;
  header.offset = offset;
  header.total = total;
  header.length = static_cast<uint32_t>(total == 0 ? 0 : std::min<uint64_t>(kChunk, total - offset));
  std::vector<uint8_t> frame(kChunkHeaderBytes);
  encodeChunkHeader(header, frame.data());
  std::vector<uint8_t> payload = randomBytes(rng, header.length);
  frame.insert(frame.end(), payload.begin(), payload.end());
  return frame;
}

TEST(ReceivePathFuzz, TcpDataPathTakesRandomMutatedAndTruncatedFrames) {
  std::mt19937_64 rng(3);
  Settings settings;
  const long before = maxRssKb();
  int rejected = 0, ended = 0;
  for (int round = 0; round < 300; ++round) {
    // Three posted receives, each with guard bytes on both sides.
    const uint64_t capacities[3] = {200000, kChunk * 3, 0};
    std::vector<std::vector<uint8_t>> buffers;
    buffers.reserve(3);
    WindowSink sink(kChunk);
    for (uint64_t capacity : capacities) {
      buffers.emplace_back(capacity + 2 * kGuard, kGuardByte);
      sink.window.post(reinterpret_cast<Request*>(&buffers.back()), reinterpret_cast<char*>(buffers.back().data()) + kGuard,
                       capacity);
    }
    std::vector<uint8_t> stream;
    const int segments = 1 + rng() % 12;
    for (int s = 0; s < segments; ++s) {
      std::vector<uint8_t> piece;
      const uint64_t message = rng() % 4;  // 3 is never posted
      // The posted size or a little less (a receive larger than its message); 5000 for message 3.
      const uint64_t posted = message < 3 ? capacities[message] : 5000;
      const uint64_t total = posted - std::min<uint64_t>(posted, (rng() % 2) * (rng() % 100));
      const uint64_t offset = total ? (rng() % ((total + kChunk - 1) / kChunk)) * kChunk : 0;
      piece = frameFor(message, offset, total, rng);
      switch (rng() % 4) {
        case 0: break;                                                     // a valid frame
        case 1: piece[rng() % kChunkHeaderBytes] ^= 1u << (rng() % 8); break;  // a flipped header bit
        case 2: piece = randomBytes(rng, rng() % 300); break;              // garbage
        case 3: piece.resize(rng() % (piece.size() + 1)); break;           // truncated
      }
      stream.insert(stream.end(), piece.begin(), piece.end());
    }
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair), 0);
    DataPathSetup setup;
    setup.chunkBytes = kChunk;
    setup.settings = &settings;
    setup.sockets.emplace_back(pair[0]);
    TcpDataPath path(std::move(setup));
    std::thread writer([&] {
      size_t at = 0;
      while (at < stream.size()) {
        ssize_t n = write(pair[1], stream.data() + at, std::min<size_t>(stream.size() - at, 1 + rng() % 9000));
        if (n > 0) at += static_cast<size_t>(n);
        else if (errno == EAGAIN) std::this_thread::sleep_for(std::chrono::microseconds(50));
        else break;
      }
      close(pair[1]);  // the end of the stream: the path must stop, not wait for more
    });
    const auto start = Clock::now();
    std::string why;
    for (;;) {
      std::vector<pollfd> fds;
      path.addPollFds(&fds);
      poll(fds.data(), fds.size(), 100);
      if (!path.progress(fds, &sink, &why)) break;
      ASSERT_LT(Clock::now() - start, std::chrono::seconds(5)) << "the data path hangs on round " << round;
    }
    writer.join();
    (why == "peer closed the connection" ? ended : rejected)++;
    for (const std::vector<uint8_t>& buffer : buffers) {
      for (size_t i = 0; i < kGuard; ++i) {
        ASSERT_EQ(buffer[i], kGuardByte) << "wrote before a buffer, round " << round;
        ASSERT_EQ(buffer[buffer.size() - 1 - i], kGuardByte) << "wrote past a buffer, round " << round;
      }
    }
  }
  // Both ways out were taken: streams that ended cleanly and streams refused as violations.
  EXPECT_GT(rejected, 0);
  EXPECT_GT(ended, 0);
  EXPECT_LT(maxRssKb() - before, 64 * 1024) << "the receive path grew memory";
}

// Whole connections: authenticate with the right token, then send garbage. The plugin is used
// through its own API functions (linked in), on two rails over loopback.
TEST(ReceivePathFuzz, AuthenticatedPeersSendingGarbageOnlyFailTheirOwnRails) {
  setenv("FLASHCCL_SOFTBOND_RAILS", "lo", 1);
  setenv("FLASHCCL_SOFTBOND_TIMEOUT_MS", "200", 1);
  ASSERT_EQ(api::init(softbond_test::captureLog), ncclSuccess);
  std::mt19937_64 rng(4);
  const long before = maxRssKb();
  for (int round = 0; round < 150; ++round) {
    uint8_t handleBytes[kHandleBytes] = {};
    void* listenComm = nullptr;
    ASSERT_EQ(api::listen(0, handleBytes, &listenComm), ncclSuccess);
    ListenHandle handle;
    const char* why = nullptr;
    ASSERT_TRUE(decodeHandle(handleBytes, &handle, &why));
    Hello hello;
    hello.railCount = 1;
    hello.laneCount = 3;  // control + the two default data streams
    hello.chunkBytes = 128 << 10;
    hello.listenId = handle.listenId;
    hello.connId = rng();
    memcpy(hello.token, handle.token, kTokenBytes);
    std::vector<int> sockets;
    for (uint8_t lane = 0; lane < hello.laneCount; ++lane) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      ASSERT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&handle.rails[0].storage), handle.rails[0].length), 0);
      hello.lane = lane;
      uint8_t helloBytes[kHelloBytes];
      encodeHello(hello, helloBytes);
      ASSERT_EQ(write(fd, helloBytes, sizeof(helloBytes)), static_cast<ssize_t>(sizeof(helloBytes)));
      sockets.push_back(fd);
    }
    void* recvComm = nullptr;
    const auto start = Clock::now();
    while (!recvComm && Clock::now() - start < std::chrono::seconds(5)) {
      ASSERT_EQ(api::accept(listenComm, &recvComm), ncclSuccess);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_NE(recvComm, nullptr) << "round " << round;
    api::closeListen(listenComm);
    std::vector<char> buffer(1 << 20);
    void* registration = nullptr;
    ASSERT_EQ(api::regMr(recvComm, buffer.data(), buffer.size(), NCCL_PTR_HOST, &registration), ncclSuccess);
    void* request = nullptr;
    void* data = buffer.data();
    size_t size = buffer.size();
    ASSERT_EQ(api::irecv(recvComm, 1, &data, &size, &registration, &request), ncclSuccess);
    // Garbage, a truncated chunk header, or a chunk for a receive never announced.
    int target = sockets[rng() % sockets.size()];
    std::vector<uint8_t> junk = randomBytes(rng, 1 + rng() % 4000);
    if (round % 3 == 1) junk.resize(kChunkHeaderBytes / 2);
    if (round % 3 == 2) junk = frameFor(99, 0, 100, rng);
    (void)!write(target, junk.data(), junk.size());
    if (round % 2) {
      for (int fd : sockets) close(fd);  // then the peer vanishes
      sockets.clear();
    }
    // The receive ends in an error once the only rail fails -- or, when the junk is merely
    // incomplete and the peer is still there, it is still pending: never a crash either way.
    // A peer that is still there but silent is a slow peer, not a failure: give it 300 ms.
    const auto waitFrom = Clock::now();
    const auto patience = sockets.empty() ? std::chrono::milliseconds(3000) : std::chrono::milliseconds(300);
    int done = 0;
    ncclResult_t status = ncclSuccess;
    while (status == ncclSuccess && !done && Clock::now() - waitFrom < patience) {
      status = api::test(request, &done, nullptr);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(done, 0) << "garbage completed a receive, round " << round;
    if (sockets.empty()) EXPECT_NE(status, ncclSuccess) << "a vanished peer left the receive pending, round " << round;
    api::deregMr(recvComm, registration);
    api::closeRecv(recvComm);
    for (int fd : sockets) close(fd);
  }
  EXPECT_LT(maxRssKb() - before, 64 * 1024) << "connections with garbage grew memory";
}

}  // namespace
}  // namespace flashccl::softbond
