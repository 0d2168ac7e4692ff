#include "connection.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "check.h"
#include "clock.h"
#include "fault_injection.h"
#include "log.h"

namespace flashccl::softbond {

Connection::Connection(bool sending, uint64_t connId, const Bond& bond, int railCount, Backend* backend,
                       const Settings& settings)
    : sending_(sending),
      connId_(connId),
      bond_(bond),
      backend_(backend),
      settings_(settings),
      wakeFd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      requests_(this) {
  rails_.resize(railCount);
  for (int r = 0; r < railCount; ++r) {
    rails_[r].index = r;
    rails_[r].local = bond.rails[r % bond.rails.size()];
  }
}

Connection::~Connection() { close(); }

void Connection::startThread() { thread_ = std::thread([this] { run(); }); }

void Connection::close() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  uint64_t one = 1;
  (void)!write(wakeFd_.get(), &one, sizeof(one));
  thread_.join();
}

int Connection::pingIntervalMs() const { return std::clamp(settings_.timeoutMs / 4, 10, 250); }

std::string Connection::railName(const Rail& rail) const {
  char id[32];
  snprintf(id, sizeof(id), "%016" PRIx64, connId_);
  return "rail " + std::to_string(rail.index) + " (" + rail.local.name + " " +
         (sending_ ? "-> " : "<- ") + rail.remote.str() + ", connection " + id + ")";
}

// ---- NCCL's side ---------------------------------------------------------------------------------

ncclResult_t Connection::submit(char* data, size_t size, MemoryRegistration* registration, Request** request) {
  *request = nullptr;
  Request* slot = requests_.acquire();
  if (!slot) return ncclSuccess;  // NCCL retries
  slot->data = data;
  slot->size = size;
  slot->registration = registration;
  slot->completedBytes = 0;
  slot->error = ncclSuccess;
  {
    std::lock_guard<std::mutex> lock(submitMutex_);
    submitted_.push_back(slot);
  }
  uint64_t one = 1;
  (void)!write(wakeFd_.get(), &one, sizeof(one));
  *request = slot;
  return ncclSuccess;
}

ncclResult_t Connection::test(Request* request, int* done, int* size) {
  int state = request->state.load(std::memory_order_acquire);
  if (state == static_cast<int>(RequestState::kDone)) {
    *done = 1;
    if (size) *size = static_cast<int>(request->completedBytes);
    request->state.store(static_cast<int>(RequestState::kFree), std::memory_order_release);
    return ncclSuccess;
  }
  if (state == static_cast<int>(RequestState::kFailed)) {
    ncclResult_t result = request->error;
    request->state.store(static_cast<int>(RequestState::kFree), std::memory_order_release);
    return result;
  }
  *done = 0;
  return ncclSuccess;
}

ncclResult_t Connection::registerMemory(void* data, size_t size, int type, int dmabufFd, uint64_t offset,
                                        void** handle) {
  auto registration = std::make_unique<MemoryRegistration>();
  std::vector<const NetInterface*> locals;
  for (const Rail& rail : rails_) locals.push_back(&rail.local);
  SB_CHECK(backend_->registerMemory(locals, data, size, type, dmabufFd, offset, registration.get()));
  *handle = registration.get();
  std::lock_guard<std::mutex> lock(registrationMutex_);
  registrations_.push_back(std::move(registration));
  return ncclSuccess;
}

ncclResult_t Connection::deregisterMemory(void* handle) {
  std::lock_guard<std::mutex> lock(registrationMutex_);
  auto found = std::find_if(registrations_.begin(), registrations_.end(),
                            [&](const std::unique_ptr<MemoryRegistration>& r) { return r.get() == handle; });
  if (found == registrations_.end()) {
    SB_WARN("deregMr: unknown memory handle %p", handle);
    return ncclInternalError;
  }
  backend_->deregisterMemory(found->get());
  registrations_.erase(found);
  return ncclSuccess;
}

void Connection::complete(Request* request, size_t bytes) {
  request->completedBytes = bytes;
  request->state.store(static_cast<int>(RequestState::kDone), std::memory_order_release);
}

void Connection::fail(Request* request, ncclResult_t result) {
  request->error = result;
  request->state.store(static_cast<int>(RequestState::kFailed), std::memory_order_release);
}

// ---- rails ---------------------------------------------------------------------------------------

void Connection::heard(Rail& rail, int64_t nowMs) {
  if (!rail.inService && (rail.healthySinceMs == 0 || nowMs - rail.lastHeardMs > 2 * pingIntervalMs()))
    rail.healthySinceMs = nowMs;
  rail.lastHeardMs = nowMs;
  rail.everHeard = true;
}

bool Connection::sendControl(Rail& rail, std::vector<uint8_t> message, int64_t nowMs) {
  if (!rail.control.open()) return false;
  if (!rail.control.queue(std::move(message))) {
    railBroken(rail, "control socket stopped draining", nowMs);
    return false;
  }
  return true;
}

void Connection::passToBackend(Rail& rail, const ControlFrame& frame, int64_t nowMs) {
  std::vector<std::vector<uint8_t>> replies;
  std::string why;
  if (!rail.data || !rail.data->onControl(frame, &replies, &why)) {
    railBroken(rail, why.empty() ? "unexpected control message for the backend" : why, nowMs);
    return;
  }
  for (std::vector<uint8_t>& reply : replies) sendControl(rail, std::move(reply), nowMs);
}

Rail* Connection::controlRail(int preferred) {
  if (preferred >= 0 && preferred < static_cast<int>(rails_.size()) && rails_[preferred].inService &&
      rails_[preferred].control.open())
    return &rails_[preferred];
  for (Rail& rail : rails_)
    if (rail.inService && rail.control.open()) return &rail;
  return nullptr;
}

void Connection::takeOutOfService(Rail& rail, const std::string& why, int64_t nowMs, bool byPeer) {
  if (!rail.inService) return;
  rail.inService = false;
  rail.outByPeer = byPeer;
  rail.reason = why;
  rail.outOfServiceSinceMs = nowMs;
  rail.healthySinceMs = 0;
  if (rail.data) {
    rail.data->dropQueued();
    rail.data->railFailed();
  }
  leftService(rail, nowMs);
  // Tell the peer on a rail that still works, so it stops using this one too (it may still hear
  // our heartbeats if only one direction broke).
  if (!byPeer && !peerClosed_) {
    if (Rail* other = controlRail(-1)) sendControl(*other, encodeRailDown(static_cast<uint8_t>(rail.index)), nowMs);
  }
}

void Connection::railBroken(Rail& rail, const std::string& why, int64_t nowMs) {
  rail.control.close();
  rail.data.reset();
  if (rail.inService) {
    takeOutOfService(rail, why, nowMs, false);
  } else if (rail.reason.empty()) {
    rail.reason = why;
  }
}

void Connection::installSockets(Rail& rail, uint32_t generation, std::vector<Fd> sockets, int64_t nowMs) {
  Fd control = std::move(sockets.front());
  sockets.erase(sockets.begin());
  DataPathSetup setup;
  setup.rail = rail.index;
  setup.local = &rail.local;
  setup.sender = sending_;
  setup.chunkBytes = settings_.chunkBytes;
  setup.generation = generation;
  setup.sockets = std::move(sockets);
  setup.settings = &settings_;
  std::unique_ptr<DataPath> data;
  if (backend_->createDataPath(std::move(setup), &data) != ncclSuccess) {
    rail.reason = "backend could not set up the rail";
    return;
  }
  if (rail.inService) {
    // New sockets for a rail that looked fine from here: the other end saw it break and
    // reconnected. What went by the old sockets is gone with them.
    takeOutOfService(rail, "the peer reconnected it", nowMs, true);
  }
  rail.control.attach(std::move(control));
  rail.data = std::move(data);
  rail.generation = generation;
  rail.healthySinceMs = 0;
  rail.unackedBytes = 0;
  std::vector<std::vector<uint8_t>> opening;
  rail.data->openingMessages(&opening);
  for (std::vector<uint8_t>& message : opening) sendControl(rail, std::move(message), nowMs);
  sendControl(rail, encodePing(static_cast<uint64_t>(nowMs)), nowMs);
  rail.lastPingMs = nowMs;
}

void Connection::checkRail(Rail& rail, int64_t nowMs) {
  FaultInjector& faults = faultInjector();
  if (faults.armed() && faults.resetEpoch(rail.index) > rail.faultEpochSeen) {
    rail.faultEpochSeen = faults.resetEpoch(rail.index);
    railBroken(rail, "test fault: sockets closed (FLASHCCL_SOFTBOND_FAULT)", nowMs);
  }
  const int64_t timeout = settings_.timeoutMs;
  const bool peerSaysDown = nowMs - rail.peerDownNoticeMs < 3 * pingIntervalMs();
  if (rail.inService) {
    char why[160] = "";
    bool byPeer = false;
    if (rail.everHeard && nowMs - rail.lastHeardMs > timeout) {
      snprintf(why, sizeof(why), "nothing heard from the peer for %lld ms", (long long)(nowMs - rail.lastHeardMs));
    } else if (rail.unackedBytes > 0 && nowMs - rail.lastAckMs > timeout) {
      snprintf(why, sizeof(why), "%llu bytes unacknowledged for %lld ms", (unsigned long long)rail.unackedBytes,
               (long long)(nowMs - rail.lastAckMs));
    } else if (peerSaysDown) {
      snprintf(why, sizeof(why), "the peer reports it failed; last heard %lld ms ago",
               (long long)(nowMs - rail.lastHeardMs));
      byPeer = true;
    }
    if (why[0]) takeOutOfService(rail, why, nowMs, byPeer);
    return;
  }
  // Out of service: back once the peer has been heard steadily for the probe time.
  // The cheap clock tests first: settled() costs a syscall per stream (tcp_data_path.cc).
  bool steady = rail.healthySinceMs != 0 && nowMs - rail.healthySinceMs >= settings_.probeMs &&
                nowMs - rail.lastHeardMs <= 2 * pingIntervalMs() && rail.control.open() && rail.data &&
                rail.data->ready() && rail.data->settled();
  if (steady && !peerSaysDown && !faults.dark(rail.index, nowMs)) {
    rail.inService = true;
    rail.lastAckMs = nowMs;
    rail.rejoined = true;
    rail.bytesPutAtRejoin = rail.bytesPut;
    SB_WARN("%s back in service after %.1f s out (%s); it carries traffic again", railName(rail).c_str(),
            (nowMs - rail.outOfServiceSinceMs) / 1000.0, rail.reason.c_str());
    rail.reason.clear();
    rejoinedService(rail, nowMs);
  }
}

void Connection::checkWholeBond(int64_t nowMs) {
  (void)nowMs;
  if (broken_) return;
  for (const Rail& rail : rails_)
    if (rail.inService) return;
  if (!hasPendingWork()) return;
  // Nothing left to carry the pending requests: fail them, once and for good.
  broken_ = true;
  brokenResult_ = peerClosed_ ? ncclRemoteError : ncclSystemError;
  std::string reasons;
  for (const Rail& rail : rails_)
    reasons += (reasons.empty() ? "" : "; ") + ("rail " + std::to_string(rail.index) + ": " + rail.reason);
  SB_WARN("every rail of %s to %s has failed (%s); failing the pending requests with %s", bond_.name.c_str(),
          rails_.empty() ? "?" : rails_[0].remote.str().c_str(), reasons.c_str(),
          brokenResult_ == ncclRemoteError ? "ncclRemoteError" : "ncclSystemError");
  failPending(brokenResult_);
}

void Connection::sendHeartbeats(int64_t nowMs) {
  FaultInjector& faults = faultInjector();
  for (Rail& rail : rails_) {
    if (!rail.control.open() || faults.dark(rail.index, nowMs)) continue;
    if (nowMs - rail.lastPingMs < pingIntervalMs() || rail.control.hasQueued()) continue;
    rail.lastPingMs = nowMs;
    sendControl(rail, encodePing(static_cast<uint64_t>(nowMs)), nowMs);
    // Keep telling the peer about a rail we failed ourselves and still do not hear, so it does
    // not take it back early (it may still hear us if only one direction broke). Once we hear
    // the peer on it again we stop, or each side would hold the rail down for the other.
    if (!rail.inService || rail.outByPeer) continue;
    for (const Rail& other : rails_) {
      const bool hearing = other.control.open() && nowMs - other.lastHeardMs <= 2 * pingIntervalMs();
      if (!other.inService && !other.outByPeer && !hearing && other.index != rail.index)
        sendControl(rail, encodeRailDown(static_cast<uint8_t>(other.index)), nowMs);
    }
  }
}

// ---- the progress thread ----------------------------------------------------------------------

void Connection::serveRail(Rail& rail, const std::vector<pollfd>& fds, int64_t nowMs) {
  // A rail broken while serving another one (its control queue overflowed) has a stale entry.
  if (!rail.polled || !rail.control.open()) return;
  short revents = fds[rail.controlPollIndex].revents;
  int error = 0;
  if (revents & (POLLIN | POLLERR | POLLHUP)) {
    std::vector<ControlFrame> frames;
    const char* why = nullptr;
    IoStatus status = rail.control.receive(&frames, &error, &why);
    if (!frames.empty()) heard(rail, nowMs);
    for (const ControlFrame& frame : frames) {
      if (frame.type == ControlType::kPing) continue;
      if (frame.type == ControlType::kBye) {
        peerClosed_ = true;
        continue;
      }
      if (frame.type == ControlType::kRailDown) {
        uint8_t down = 0;
        if (decodeRailDown(frame, &down) && down < rails_.size()) rails_[down].peerDownNoticeMs = nowMs;
        continue;
      }
      onFrame(rail, frame, nowMs);
      if (!rail.control.open()) return;  // onFrame found a protocol violation
    }
    if (status == IoStatus::kClosed || status == IoStatus::kError) {
      std::string reason = why ? std::string("protocol error: ") + why
                               : status == IoStatus::kClosed ? std::string("peer closed the connection")
                                                             : std::string("control socket: ") + strerror(error);
      railBroken(rail, reason, nowMs);
      return;
    }
  }
  if (rail.control.hasQueued()) {
    IoStatus status = rail.control.flush(&error);
    if (status == IoStatus::kError || status == IoStatus::kClosed) {
      railBroken(rail, std::string("control socket: ") + strerror(error), nowMs);
      return;
    }
  }
  if (rail.data) {
    std::string why;
    if (!rail.data->progress(fds, sink(), &why)) railBroken(rail, why, nowMs);
  }
}

void Connection::pollAndServe(int64_t nowMs) {
  FaultInjector& faults = faultInjector();
  std::vector<pollfd> fds;
  fds.push_back({wakeFd_.get(), POLLIN, 0});
  bool dialing = false;
  for (Rail& rail : rails_) {
    dialing = dialing || rail.dialer.status() == RailDialer::Status::kInProgress;
    rail.polled = rail.control.open() && !faults.dark(rail.index, nowMs);
    if (!rail.polled) continue;
    rail.controlPollIndex = fds.size();
    short events = POLLIN;
    if (rail.control.hasQueued()) events |= POLLOUT;
    fds.push_back({rail.control.fd(), events, 0});
    if (rail.data) rail.data->addPollFds(&fds);
  }
  // Sleep until the next heartbeat is due, or briefly while a rail is being dialed (its sockets
  // are polled by the dialer itself).
  int timeoutMs = dialing ? 5 : std::max(1, pingIntervalMs() / 2);
  if (poll(fds.data(), fds.size(), timeoutMs) < 0) return;
  if (fds[0].revents) {
    uint64_t drained;
    (void)!read(wakeFd_.get(), &drained, sizeof(drained));
  }
  nowMs = monotonicMs();
  for (Rail& rail : rails_) serveRail(rail, fds, nowMs);
}

void Connection::round(int64_t nowMs) {
  std::deque<Request*> incoming;
  {
    std::lock_guard<std::mutex> lock(submitMutex_);
    incoming.swap(submitted_);
  }
  for (Request* request : incoming) {
    if (broken_) fail(request, brokenResult_);
    else accept(request, nowMs);
  }
  beforePoll(nowMs);
  for (Rail& rail : rails_) checkRail(rail, nowMs);
  checkWholeBond(nowMs);
  if (!broken_) schedule(nowMs);
  sendHeartbeats(nowMs);
  pollAndServe(nowMs);
}

void Connection::sayGoodbye() {
  const int64_t startMs = monotonicMs();
  beforeGoodbye(startMs);
  std::vector<Rail*> open;
  for (Rail& rail : rails_) {
    if (!rail.control.open() || faultInjector().dark(rail.index, startMs)) continue;
    if (rail.control.queue(encodeBye())) open.push_back(&rail);
  }
  // Up to 100 ms for what is queued (last acknowledgements, goodbye) to leave; the peer copes
  // with an abrupt close too, but then reads it as a failure.
  while (!open.empty() && monotonicMs() - startMs < 100) {
    std::vector<pollfd> fds;
    for (Rail* rail : open) fds.push_back({rail->control.fd(), POLLOUT, 0});
    poll(fds.data(), fds.size(), 10);
    for (size_t i = open.size(); i-- > 0;) {
      int error = 0;
      IoStatus status = open[i]->control.flush(&error);
      if (!open[i]->control.hasQueued() || status == IoStatus::kError || status == IoStatus::kClosed)
        open.erase(open.begin() + i);
    }
  }
}

void Connection::run() {
  while (!stop_.load(std::memory_order_relaxed)) round(monotonicMs());
  sayGoodbye();
  for (Rail& rail : rails_) {
    if (rail.event.open && !broken_) {  // a broken connection has said so already
      SB_WARN("%s failed (%s); closing with %u of %u resent chunks (%llu bytes) not yet delivered",
              railName(rail).c_str(), rail.event.reason.c_str(), rail.event.chunksUndelivered,
              rail.event.chunksResent, (unsigned long long)rail.event.bytesResent);
    }
    if (rail.rejoined) {
      SB_INFO("%s closed: %llu payload bytes put, %llu of them since it last rejoined service", railName(rail).c_str(),
              (unsigned long long)rail.bytesPut, (unsigned long long)(rail.bytesPut - rail.bytesPutAtRejoin));
    } else {
      SB_INFO("%s closed: %llu payload bytes put", railName(rail).c_str(), (unsigned long long)rail.bytesPut);
    }
    rail.data.reset();
    rail.control.close();
  }
}

}  // namespace flashccl::softbond
