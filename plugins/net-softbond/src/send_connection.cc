#include "send_connection.h"

#include <algorithm>

#include "clock.h"
#include "fault_injection.h"
#include "log.h"

namespace flashccl::softbond {
namespace {

std::string railList(uint8_t mask) {
  std::string list;
  for (int r = 0; r < kMaxRailsPerBond; ++r)
    if (mask & (1u << r)) list += (list.empty() ? "" : ",") + std::to_string(r);
  return list.empty() ? "none" : list;
}

}  // namespace

SendConnection::SendConnection(uint64_t connId, const Bond& bond, const ListenHandle& remote, Backend* backend,
                               const Settings& settings, std::vector<std::vector<Fd>> sockets,
                               std::vector<std::string> errors)
    : Connection(true, connId, bond, remote.railCount, backend, settings), remote_(remote) {
  int64_t nowMs = monotonicMs();
  for (Rail& rail : rails_) {
    rail.remote = remote.rails[rail.index];
    std::vector<Fd>& railSockets = sockets[rail.index];
    if (railSockets.empty()) {
      rail.reason = "could not connect: " + errors[rail.index];
      rail.outOfServiceSinceMs = nowMs;
      rail.nextDialMs = nowMs + settings_.probeMs;
      SB_WARN("%s out of service from the start (%s); retrying every %d ms", railName(rail).c_str(),
              rail.reason.c_str(), settings_.probeMs);
      continue;
    }
    installSockets(rail, 0, std::move(railSockets), nowMs);
    if (rail.data) {
      rail.inService = true;
      rail.lastHeardMs = nowMs;
      rail.lastAckMs = nowMs;
    }
  }
  startThread();
}

SendConnection::~SendConnection() { close(); }

SendConnection::OutMessage* SendConnection::find(uint64_t index) {
  if (index < firstIndex_ || index >= firstIndex_ + window_.size()) return nullptr;
  return &window_[index - firstIndex_];
}

uint32_t SendConnection::chunkLength(const OutMessage& message, uint32_t chunk) const {
  uint64_t offset = static_cast<uint64_t>(chunk) * settings_.chunkBytes;
  return static_cast<uint32_t>(std::min<uint64_t>(settings_.chunkBytes, message.size - offset));
}

void SendConnection::accept(Request* request, int64_t nowMs) {
  OutMessage message;
  message.index = nextIndex_++;
  message.size = request->size;
  message.request = request;
  window_.push_back(std::move(message));
  auto early = earlyCts_.find(window_.back().index);
  if (early != earlyCts_.end()) {
    window_.back().haveCts = true;
    window_.back().cts = early->second;
    earlyCts_.erase(early);
    activate(window_.back(), nowMs);
  }
}

void SendConnection::activate(OutMessage& message, int64_t nowMs) {
  (void)nowMs;
  const uint64_t size = message.size;
  if (size > message.cts.capacity) {
    // NCCL's contract: a receive is at least as large as the send it matches.
    SB_WARN("message %llu of %llu bytes does not fit the peer's %llu-byte receive buffer",
            (unsigned long long)message.index, (unsigned long long)size, (unsigned long long)message.cts.capacity);
    fail(message.request, ncclInternalError);
    message.request = nullptr;
    retireCompleted();
    return;
  }
  message.chunks = chunkCount(size, settings_.chunkBytes);
  message.state.assign(message.chunks, ChunkState());
  message.active = true;
  for (uint32_t c = 0; c < message.chunks; ++c) pending_.push_back({message.index, c});
}

void SendConnection::onCts(Rail& rail, const Cts& cts, int64_t nowMs) {
  if (cts.message < firstIndex_) return;  // a repeat for a message already delivered
  if (OutMessage* message = find(cts.message)) {
    if (message->haveCts) return;  // the receiver repeats CTS after a rail failure
    message->haveCts = true;
    message->cts = cts;
    if (message->request) activate(*message, nowMs);
    return;
  }
  // The receiver may post (and announce) receives before NCCL hands us the sends; it never has
  // more than a pool's worth outstanding.
  if (cts.message >= nextIndex_ + 2 * RequestPool::kSize) {
    railBroken(rail, "CTS for a message far ahead of any send", nowMs);
    return;
  }
  earlyCts_.emplace(cts.message, cts);
}

void SendConnection::onAck(Rail& rail, const AckEntry& entry, int64_t nowMs) {
  rail.lastAckMs = nowMs;
  if (entry.message < firstIndex_) return;  // acknowledgement of a copy: already counted
  OutMessage* message = find(entry.message);
  if (!message || !message->active || entry.chunk >= message->chunks) {
    railBroken(rail, "acknowledgement for a chunk never sent", nowMs);
    return;
  }
  ChunkState& state = message->state[entry.chunk];
  if (state.acked) return;
  state.acked = true;
  const uint32_t length = chunkLength(*message, entry.chunk);
  for (Rail& other : rails_) {
    if (state.onRails & (1u << other.index)) other.unackedBytes -= length;
    if (state.resentFrom & (1u << other.index) && other.event.open) {
      if (--other.event.chunksUndelivered == 0) finishEvent(other, nowMs);
    }
  }
  state.onRails = 0;
  if (++message->acked == message->chunks) {
    complete(message->request, message->size);
    message->request = nullptr;
    for (Rail& other : rails_)
      if (other.data) other.data->release(message->index);
    retireCompleted();
  }
}

void SendConnection::retireCompleted() {
  // A message leaves the window once delivered (or failed); later ones may finish first.
  while (!window_.empty() && window_.front().request == nullptr) {
    window_.pop_front();
    ++firstIndex_;
  }
}

void SendConnection::finishEvent(Rail& rail, int64_t nowMs) {
  FailoverEvent& event = rail.event;
  uint8_t survivors = 0;
  for (const Rail& other : rails_)
    if (other.inService) survivors |= 1u << other.index;
  SB_WARN("%s failed (%s); %u chunks (%llu bytes) resent on rail %s; all delivered %lld ms after the failure was "
          "detected, %lld ms after the rail last made progress",
          railName(rail).c_str(), event.reason.c_str(), event.chunksResent, (unsigned long long)event.bytesResent,
          railList(survivors).c_str(), (long long)(nowMs - event.detectedMs),
          (long long)(nowMs - event.lastProgressMs));
  event = FailoverEvent();
}

void SendConnection::leftService(Rail& rail, int64_t nowMs) {
  const uint8_t bit = 1u << rail.index;
  const bool hadUnacked = rail.unackedBytes > 0;
  std::vector<ChunkRef> stranded;
  uint64_t bytes = 0;
  for (OutMessage& message : window_) {
    if (!message.active || !message.request) continue;
    for (uint32_t c = 0; c < message.chunks; ++c) {
      ChunkState& state = message.state[c];
      if (!(state.onRails & bit)) continue;
      state.onRails &= ~bit;
      if (state.acked || state.onRails) continue;
      if (!(state.resentFrom & bit)) {
        state.resentFrom |= bit;
        ++rail.event.chunksUndelivered;
      }
      stranded.push_back({message.index, c});
      bytes += chunkLength(message, c);
    }
  }
  rail.unackedBytes = 0;
  if (rail.event.open) {
    // Failed again before the last failure's resends were all delivered: one event.
    rail.event.chunksResent += stranded.size();
    rail.event.bytesResent += bytes;
  } else {
    rail.event.open = true;
    rail.event.detectedMs = nowMs;
    rail.event.lastProgressMs = hadUnacked ? rail.lastAckMs : rail.lastHeardMs;
    rail.event.reason = rail.reason;
    rail.event.chunksResent = stranded.size();
    rail.event.bytesResent = bytes;
  }
  std::sort(stranded.begin(), stranded.end());
  pending_.insert(pending_.begin(), stranded.begin(), stranded.end());
  if (peerClosed_) {
    rail.event = FailoverEvent();  // the peer said goodbye: its sockets closing is no failure
  } else if (rail.event.chunksUndelivered == 0) {
    uint8_t survivors = 0;
    for (const Rail& other : rails_)
      if (other.inService) survivors |= 1u << other.index;
    SB_WARN("%s failed (%s); nothing was in flight on it; traffic continues on rail %s", railName(rail).c_str(),
            rail.reason.c_str(), railList(survivors).c_str());
    rail.event = FailoverEvent();
  }
}

void SendConnection::schedule(int64_t nowMs) {
  FaultInjector& faults = faultInjector();
  while (!pending_.empty()) {
    ChunkRef ref = pending_.front();
    OutMessage* message = find(ref.message);
    if (!message || !message->request || message->state[ref.chunk].acked || message->state[ref.chunk].onRails) {
      pending_.pop_front();  // delivered meanwhile, or already on its way on a live rail
      continue;
    }
    Rail* best = nullptr;
    for (Rail& rail : rails_) {
      if (!rail.inService || !rail.data || !rail.data->ready() || !rail.data->canPut()) continue;
      if (rail.unackedBytes >= kMaxUnackedPerRail || faults.dark(rail.index, nowMs)) continue;
      if (!best || rail.unackedBytes < best->unackedBytes) best = &rail;
    }
    if (!best) return;
    const uint32_t length = chunkLength(*message, ref.chunk);
    const uint64_t offset = static_cast<uint64_t>(ref.chunk) * settings_.chunkBytes;
    ChunkPut put;
    put.header.length = length;
    put.header.message = message->index;
    put.header.offset = offset;
    put.header.total = message->size;
    put.source = message->request->data + offset;
    if (MemoryRegistration* registration = message->request->registration)
      put.localKey = registration->localKeys[best->index];
    put.remoteAddress = message->cts.address + offset;
    put.remoteKey = message->cts.remoteKeys[best->index];
    best->data->put(put);
    if (best->unackedBytes == 0) best->lastAckMs = nowMs;
    best->unackedBytes += length;
    best->bytesPut += length;
    message->state[ref.chunk].onRails |= 1u << best->index;
    faults.countPut(best->index, length, nowMs);
    pending_.pop_front();
  }
}

void SendConnection::onFrame(Rail& rail, const ControlFrame& frame, int64_t nowMs) {
  switch (frame.type) {
    case ControlType::kCts: {
      Cts cts;
      if (decodeCts(frame, &cts)) onCts(rail, cts, nowMs);
      else railBroken(rail, "malformed CTS", nowMs);
      return;
    }
    case ControlType::kAck: {
      std::vector<AckEntry> entries;
      if (!decodeAck(frame, &entries)) {
        railBroken(rail, "malformed acknowledgement", nowMs);
        return;
      }
      for (const AckEntry& entry : entries) {
        onAck(rail, entry, nowMs);
        if (!rail.control.open()) return;
      }
      return;
    }
    case ControlType::kVerbsQp:
      passToBackend(rail, frame, nowMs);
      return;
    default:
      railBroken(rail, "unexpected control message", nowMs);
  }
}

void SendConnection::failPending(ncclResult_t result) {
  for (OutMessage& message : window_) {
    if (message.request) fail(message.request, result);
    message.request = nullptr;
  }
  window_.clear();
  pending_.clear();
  firstIndex_ = nextIndex_;
}

void SendConnection::beforePoll(int64_t nowMs) {
  if (peerClosed_) return;  // nothing to reconnect to
  for (Rail& rail : rails_) {
    if (rail.control.open()) continue;
    if (rail.dialer.status() != RailDialer::Status::kInProgress) {
      if (nowMs < rail.nextDialMs) continue;
      Hello hello;
      hello.rail = static_cast<uint8_t>(rail.index);
      hello.laneCount = static_cast<uint8_t>(1 + backend_->dataSockets(settings_));
      hello.railCount = static_cast<uint8_t>(rails_.size());
      hello.backend = backend_->kind();
      std::copy(remote_.token, remote_.token + kTokenBytes, hello.token);
      hello.listenId = remote_.listenId;
      hello.connId = connId_;
      // Every attempt gets a generation of its own, so the receiver never mixes the sockets of a
      // failed attempt with those of the next one.
      hello.generation = ++rail.generation;
      hello.chunkBytes = static_cast<uint32_t>(settings_.chunkBytes);
      rail.dialer.start(rail.local.address, rail.remote, hello, nowMs + settings_.timeoutMs);
    }
    switch (rail.dialer.advance(nowMs)) {
      case RailDialer::Status::kDone:
        installSockets(rail, rail.generation, rail.dialer.takeSockets(), nowMs);
        SB_INFO("%s reconnected (generation %u); probing it", railName(rail).c_str(), rail.generation);
        break;
      case RailDialer::Status::kFailed:
        SB_INFO("%s: reconnect failed: %s", railName(rail).c_str(), rail.dialer.error().c_str());
        rail.dialer.takeSockets();
        rail.nextDialMs = nowMs + settings_.probeMs;
        break;
      default:
        break;
    }
  }
}

}  // namespace flashccl::softbond
