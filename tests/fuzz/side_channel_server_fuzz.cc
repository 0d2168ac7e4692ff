// The live side-channel server (trace/side_channel.h) on a loopback socket, driven as a hostile
// network would: the input is a script of connections opened (floods past the server's cap),
// bytes sent in pieces (frames cut at every byte), whole queries with right or wrong tokens,
// pauses (slow writers, past the server's deadline), replies read and closes. Whatever the
// server sends must be a well-formed reply, and after every input a well-behaved peer must get
// its answer within a few seconds: the server may refuse, never crash, stall or answer garbage.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_input.h"
#include "quiet_logs.h"
#include "trace/loopback_socket.h"
#include "trace/progress_snapshot.h"
#include "trace/side_channel.h"
#include "trace/side_channel_client.h"
#include "trace/trace_clock.h"
#include "trace/wire_format.h"

using namespace flashccl;
using flashccl::fuzz::FuzzInput;

namespace {

// Fixed, so that the seeds can hold queries that carry it.
const uint8_t kToken[kTraceTokenBytes] = {'f', 'l', 'a', 's', 'h', 'c', 'c', 'l',
                                          '-', 'f', 'u', 'z', 'z', '-', 't', 'k'};
constexpr uint64_t kCommHash = 0x5eed;
constexpr size_t kMaxClients = 40;   // past the server's cap of 8: a flood
constexpr int kDeadlineMs = 50;      // the server's, for a whole query
constexpr int kPauseBudgetMs = 80;   // per input: past the deadline, so slow writers are cut off
// How long after an input a good peer may have to wait: the input's connections may hold every
// slot until their deadline, and a loaded machine (the fuzzer runs niced) delays the server.
constexpr int64_t kAnswerWithinNs = 5000000000;

class Answerer : public ProgressAnswerer {
 public:
  bool answer(const ProgressQuery& query, std::string* reply) override {
    if (!sameToken(query.token, kToken)) return false;
    ProgressSnapshot snapshot;
    snapshot.identity.commHash = kCommHash;
    snapshot.identity.rank = 1;
    snapshot.identity.nranks = 2;
    snapshot.identity.host = "fuzz";
    *reply = encodeSnapshot(snapshot);
    return true;
  }
};

struct Server {
  Answerer answerer;
  std::unique_ptr<SideChannelServer> server;
  TraceEndpoint endpoint;
  sockaddr_storage address;
  socklen_t addressLength = 0;
};

Server& server() {
  static Server* s = [] {
    Server* made = new Server;
    SideChannelLimits limits;
    limits.requestDeadlineMs = kDeadlineMs;
    limits.maxConnections = 8;
    std::string error;
    made->server = SideChannelServer::start(testing::loopbackInterface(), &made->answerer, limits, &error);
    if (!made->server) {
      std::fprintf(stderr, "side_channel_server_fuzz: cannot start the server: %s\n", error.c_str());
      std::abort();
    }
    made->server->describe(&made->endpoint);
    made->endpoint.magic = kTraceEndpointMagic;
    std::memcpy(made->endpoint.token, kToken, kTraceTokenBytes);
    endpointSockaddr(made->endpoint, &made->address, &made->addressLength);
    return made;
  }();
  return *s;
}

struct Client {
  int fd = -1;
  std::string received;
};

// What the server sent on one connection, once it is all there, must be one valid reply.
void checkReceived(const Client& c) {
  if (c.received.size() < kFrameHeaderBytes) return;
  FrameHeader header;
  decodeHeader(reinterpret_cast<const uint8_t*>(c.received.data()), &header);
  if (!headerProblem(header, FrameType::kProgressReply, kMaxReplyBodyBytes).empty()) {
    std::fprintf(stderr, "side_channel_server_fuzz: the server sent a bad frame header\n");
    std::abort();
  }
  if (c.received.size() < kFrameHeaderBytes + header.length) return;
  ProgressSnapshot snapshot;
  std::string error;
  const auto* body = reinterpret_cast<const uint8_t*>(c.received.data()) + kFrameHeaderBytes;
  if (c.received.size() != kFrameHeaderBytes + header.length ||
      !decodeSnapshot(body, header.length, &snapshot, &error) || snapshot.identity.commHash != kCommHash) {
    std::fprintf(stderr, "side_channel_server_fuzz: the server sent a bad reply: %s\n", error.c_str());
    std::abort();
  }
}

void drain(Client& c) {
  char buffer[4096];
  for (;;) {
    const ssize_t got = recv(c.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (got <= 0) break;
    c.received.append(buffer, static_cast<size_t>(got));
  }
  checkReceived(c);
}

std::string queryFrame(FuzzInput& in) {
  ProgressQuery query;
  std::memcpy(query.token, kToken, kTraceTokenBytes);
  const uint8_t flip = in.byte();
  if (flip & 0x80) query.token[flip % kTraceTokenBytes] ^= 1 + (flip & 0x3f);  // a wrong token
  query.askerRank = static_cast<int32_t>(in.u32());
  query.waitingSeq = in.u64();
  query.waitingNs = static_cast<int64_t>(in.u64());
  return encodeQuery(query);
}

void sendAll(Client& c, const uint8_t* data, size_t size) {
  (void)send(c.fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// A well-behaved peer is answered, within a bound: until then it may be refused, as the input's
// connections (closed, but perhaps not yet accepted) can take the server's slots for a while.
void checkStillAnswers() {
  PeerQuery query;
  query.endpoint = server().endpoint;
  std::memcpy(query.query.token, kToken, kTraceTokenBytes);
  query.query.askerRank = 0;
  std::string why;
  const int64_t end = monotonicNs() + kAnswerWithinNs;
  while (monotonicNs() < end) {
    const std::vector<QueryOutcome> outcomes = queryPeers({query}, 2000);
    if (outcomes[0].kind == QueryOutcome::Kind::kAnswered &&
        outcomes[0].snapshot.identity.commHash == kCommHash) {
      return;
    }
    why = outcomes[0].detail;
    std::this_thread::sleep_for(std::chrono::milliseconds(kDeadlineMs));
  }
  std::fprintf(stderr, "side_channel_server_fuzz: a good query is not answered any more: %s\n", why.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::quietLogs();
  (void)server();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Server& s = server();
  FuzzInput in(data, size);
  std::vector<Client> clients;
  int pausedMs = 0;
  while (!in.empty()) {
    const uint8_t op = in.byte();
    const uint8_t which = in.byte();  // the client the op is for (read by every op: fixed layout)
    Client* c = clients.empty() ? nullptr : &clients[which % clients.size()];
    switch (op % 6) {
      case 0: {  // connect
        if (clients.size() >= kMaxClients) break;
        Client opened;
        opened.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (opened.fd < 0) break;
        if (connect(opened.fd, reinterpret_cast<const sockaddr*>(&s.address), s.addressLength) != 0) {
          close(opened.fd);
          break;
        }
        clients.push_back(opened);
        break;
      }
      case 1: {  // a piece of raw bytes
        if (c == nullptr) break;
        size_t got = 0;
        const uint8_t* piece = in.take(1 + in.byte() % 64, &got);
        sendAll(*c, piece, got);
        break;
      }
      case 2: {  // a whole query, or its first bytes: the frame cut where the input says
        if (c == nullptr) break;
        const std::string frame = queryFrame(in);
        const size_t cut = in.byte() % (frame.size() + 1);
        sendAll(*c, reinterpret_cast<const uint8_t*>(frame.data()), cut == 0 ? frame.size() : cut);
        break;
      }
      case 3: {  // close
        if (c == nullptr) break;
        drain(*c);
        close(c->fd);
        *c = clients.back();
        clients.pop_back();
        break;
      }
      case 4: {  // pause: a slow writer
        const int ms = in.byte() % 31;
        if (pausedMs + ms > kPauseBudgetMs) break;
        pausedMs += ms;
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        break;
      }
      default:  // read what came back
        if (c != nullptr) drain(*c);
        break;
    }
  }
  for (Client& c : clients) {
    drain(c);
    close(c.fd);
  }
  checkStillAnswers();
  return 0;
}
