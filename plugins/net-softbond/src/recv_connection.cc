#include "recv_connection.h"

#include <algorithm>

#include "clock.h"
#include "log.h"

namespace flashccl::softbond {
namespace {

// Acknowledgements held for a rail with nowhere to go (every rail out of service). Beyond this the
// oldest are dropped: the sender resends those chunks and they are acknowledged again.
constexpr size_t kMaxHeldAcks = 4096;

}  // namespace

RecvConnection::RecvConnection(uint64_t connId, const Bond& bond, const Hello& first, Backend* backend,
                               const Settings& settings, std::vector<AcceptedSocket> sockets)
    : Connection(false, connId, bond, first.railCount, backend, settings),
      inbox_(std::make_shared<SocketInbox>()),
      laneCount_(first.laneCount),
      window_(settings.chunkBytes),
      acks_(first.railCount) {
  inbox_->setWakeFd(wakeFd_.get());
  int64_t nowMs = monotonicMs();
  for (AcceptedSocket& socket : sockets) adopt(std::move(socket), nowMs);
  for (Rail& rail : rails_) {
    if (rail.control.open() && rail.data) {
      // Rails complete at accept() start in service; the others join once they connect and pass
      // probation.
      rail.inService = true;
      rail.lastHeardMs = nowMs;
    } else {
      rail.reason = "not connected yet";
      rail.outOfServiceSinceMs = nowMs;
    }
  }
  startThread();
}

RecvConnection::~RecvConnection() { close(); }

void RecvConnection::adopt(AcceptedSocket socket, int64_t nowMs) {
  const Hello& hello = socket.hello;
  if (hello.connId != connId_ || hello.railCount != rails_.size() || hello.laneCount != laneCount_ ||
      hello.backend != backend_->kind() || hello.chunkBytes != settings_.chunkBytes) {
    SB_INFO("connection %016llx: dropping a socket from %s whose hello does not match the connection",
            (unsigned long long)connId_, socket.peer.str().c_str());
    return;
  }
  Rail& rail = rails_[hello.rail];
  if (rail.control.open() && hello.generation <= rail.generation) return;  // stale
  // Attempts that never completed are dropped once a few newer ones exist.
  while (rail.arriving.size() > 4) rail.arriving.erase(rail.arriving.begin());
  auto& lanes = rail.arriving[hello.generation];
  lanes[hello.lane] = std::move(socket.fd);
  if (hello.lane == 0) rail.remote = socket.peer;
  if (lanes.size() < laneCount_) return;
  std::vector<Fd> ordered;
  for (auto& [lane, fd] : lanes) ordered.push_back(std::move(fd));
  uint32_t generation = hello.generation;
  rail.arriving.erase(rail.arriving.begin(), rail.arriving.upper_bound(generation));
  installSockets(rail, generation, std::move(ordered), nowMs);
  if (generation > 0) SB_INFO("%s reconnected by the peer (generation %u); probing it", railName(rail).c_str(), generation);
}

void RecvConnection::beforePoll(int64_t nowMs) {
  for (AcceptedSocket& socket : inbox_->takeAll()) adopt(std::move(socket), nowMs);
}

void RecvConnection::accept(Request* request, int64_t nowMs) {
  sendCts(window_.post(request, request->data, request->size), nowMs);
}

void RecvConnection::sendCts(ReceiveWindow::Posted& message, int64_t nowMs) {
  // Spread CTS over the rails; any rail in service will do.
  Rail* rail = controlRail(static_cast<int>(message.index % rails_.size()));
  if (!rail) return;
  Cts cts;
  cts.message = message.index;
  cts.capacity = message.capacity;
  cts.address = reinterpret_cast<uint64_t>(message.data);
  if (MemoryRegistration* registration = message.request->registration)
    std::copy(registration->remoteKeys, registration->remoteKeys + kMaxRailsPerBond, cts.remoteKeys);
  if (sendControl(*rail, encodeCts(cts), nowMs)) message.ctsRail = rail->index;
}

void RecvConnection::schedule(int64_t nowMs) {
  for (ReceiveWindow::Posted& message : window_.posted())
    if (message.request && message.ctsRail < 0) sendCts(message, nowMs);
  flushAcks(nowMs);
}

void RecvConnection::flushAcks(int64_t nowMs) {
  for (size_t r = 0; r < acks_.size(); ++r) {
    std::vector<AckEntry>& entries = acks_[r];
    if (entries.empty()) continue;
    // On the rail the chunks came by (its in-service timer watches for them), else any.
    Rail* rail = controlRail(static_cast<int>(r));
    if (!rail) {
      if (entries.size() > kMaxHeldAcks) entries.erase(entries.begin(), entries.end() - kMaxHeldAcks);
      continue;
    }
    for (size_t first = 0; first < entries.size(); first += kMaxAckEntries) {
      size_t count = std::min(kMaxAckEntries, entries.size() - first);
      if (!sendControl(*rail, encodeAck(entries.data() + first, count), nowMs)) break;
    }
    entries.clear();
  }
}

void RecvConnection::leftService(Rail& rail, int64_t nowMs) {
  // A CTS that went by this rail may be lost with it: announce those receives again elsewhere.
  for (ReceiveWindow::Posted& message : window_.posted())
    if (message.request && message.ctsRail == rail.index) message.ctsRail = -1;
  std::string survivors;
  for (const Rail& other : rails_)
    if (other.inService) survivors += (survivors.empty() ? "" : ",") + std::to_string(other.index);
  if (!peerClosed_ && !survivors.empty()) {
    SB_WARN("%s failed (%s); receiving continues on rail %s", railName(rail).c_str(), rail.reason.c_str(),
            survivors.c_str());
  } else if (!peerClosed_) {
    SB_INFO("%s failed (%s); no rail left in service", railName(rail).c_str(), rail.reason.c_str());
  }
  schedule(nowMs);
}

bool RecvConnection::hasPendingWork() const { return window_.pending(); }

void RecvConnection::failPending(ncclResult_t result) {
  for (Request* request : window_.abandon()) fail(request, result);
}

Placement RecvConnection::locate(const ChunkHeader& header, char** destination) {
  return window_.locate(header, destination);
}

bool RecvConnection::stillWanted(const ChunkHeader& header) { return window_.stillWanted(header); }

void RecvConnection::arrived(int rail, const ChunkHeader& header, bool placed) {
  uint64_t bytes = 0;
  if (placed) {
    if (Request* done = window_.markPlaced(header, &bytes)) complete(done, bytes);
  }
  // Copies are acknowledged too: the sender may have lost the first acknowledgement with a rail.
  acks_[rail].push_back({header.message, window_.chunkIndex(header)});
}

bool RecvConnection::arrivedRemote(int rail, const ChunkHeader& header) {
  char* destination = nullptr;
  Placement placement = locate(header, &destination);
  if (placement == Placement::kReject) return false;
  arrived(rail, header, placement == Placement::kPlace);
  return true;
}

void RecvConnection::onFrame(Rail& rail, const ControlFrame& frame, int64_t nowMs) {
  // CTS and acknowledgements only ever travel towards the sender.
  if (frame.type == ControlType::kVerbsQp) passToBackend(rail, frame, nowMs);
  else railBroken(rail, "unexpected control message", nowMs);
}

}  // namespace flashccl::softbond
