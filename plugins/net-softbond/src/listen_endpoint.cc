#include "listen_endpoint.h"

#include <sys/random.h>

#include <set>

#include "check.h"
#include "clock.h"
#include "log.h"

namespace flashccl::softbond {

bool randomBytes(void* out, size_t length) {
  auto* bytes = static_cast<uint8_t*>(out);
  size_t got = 0;
  while (got < length) {
    ssize_t n = getrandom(bytes + got, length - got, 0);
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

ncclResult_t ListenEndpoint::open(int dev, const Bond& bond, Backend* backend, const Settings& settings,
                                  uint8_t handle[kHandleBytes], std::unique_ptr<ListenEndpoint>* out) {
  std::unique_ptr<ListenEndpoint> endpoint(new ListenEndpoint());
  endpoint->bond_ = bond;
  endpoint->backend_ = backend;
  endpoint->settings_ = settings;
  endpoint->inbox_ = std::make_shared<SocketInbox>();
  ListenHandle published;
  published.railCount = static_cast<uint8_t>(bond.rails.size());
  published.backend = backend->kind();
  if (!randomBytes(published.token, kTokenBytes) || !randomBytes(&published.listenId, sizeof(published.listenId))) {
    SB_WARN("no random bytes from the kernel for the connection token");
    return ncclSystemError;
  }
  endpoint->listenId_ = published.listenId;
  for (size_t r = 0; r < bond.rails.size(); ++r)
    SB_CHECK(Acceptor::instance().railListener(dev, static_cast<int>(r), bond.rails[r].address, &published.rails[r]));
  Acceptor::instance().addEndpoint(published.listenId, published.token, endpoint->inbox_);
  encodeHandle(published, handle);
  *out = std::move(endpoint);
  return ncclSuccess;
}

bool ListenEndpoint::matchesUs(const Hello& hello, const SockAddr& peer) const {
  const char* mismatch = nullptr;
  if (hello.backend != backend_->kind()) mismatch = "FLASHCCL_SOFTBOND_BACKEND";
  else if (hello.backend == BackendKind::kTcp && hello.laneCount < 2) mismatch = "stream count";
  if (!mismatch) return true;
  SB_WARN("connection from %s uses another %s (%s here); dropped", peer.str().c_str(), mismatch,
          backendName(backend_->kind()));
  return false;
}

ncclResult_t ListenEndpoint::accept(RecvConnection** connection) {
  *connection = nullptr;
  int64_t nowMs = monotonicMs();
  for (AcceptedSocket& socket : inbox_->takeAll()) {
    const uint64_t connId = socket.hello.connId;
    auto done = accepted_.find(connId);
    if (done != accepted_.end()) {
      // Came in between accept() taking this connection's sockets and claiming its id.
      if (auto target = done->second.lock()) target->push(std::move(socket));
      continue;
    }
    auto found = assemblies_.find(connId);
    if (found == assemblies_.end()) {
      if (!matchesUs(socket.hello, socket.peer) || assemblies_.size() >= kMaxAssemblies) continue;
      found = assemblies_.emplace(connId, Assembly{socket.hello, nowMs, {}}).first;
    }
    const Hello& first = found->second.first;
    if (socket.hello.railCount != first.railCount || socket.hello.laneCount != first.laneCount ||
        socket.hello.chunkBytes != first.chunkBytes || socket.hello.backend != first.backend)
      continue;  // inconsistent with its own connection: not ours to repair
    found->second.sockets.push_back(std::move(socket));
  }
  for (auto it = assemblies_.begin(); it != assemblies_.end();) {
    Assembly& assembly = it->second;
    std::set<std::pair<int, int>> lanes;
    for (const AcceptedSocket& socket : assembly.sockets)
      if (socket.hello.generation == 0) lanes.insert({socket.hello.rail, socket.hello.lane});
    int completeRails = 0;
    for (int r = 0; r < assembly.first.railCount; ++r) {
      bool complete = true;
      for (int lane = 0; lane < assembly.first.laneCount; ++lane) complete = complete && lanes.count({r, lane});
      completeRails += complete;
    }
    // Every rail, or at least one once the others had the failure timeout to show up: a rail
    // that is down when the job starts must not hold the job up.
    bool ready = completeRails == assembly.first.railCount ||
                 (completeRails > 0 && nowMs - assembly.firstMs >= settings_.timeoutMs);
    if (!ready) {
      it = nowMs - assembly.firstMs > kAssemblyLifetimeMs ? assemblies_.erase(it) : std::next(it);
      continue;
    }
    Settings settings = settings_;
    settings.chunkBytes = assembly.first.chunkBytes;  // the sender's choice rules the connection
    auto* received = new RecvConnection(it->first, bond_, assembly.first, backend_, settings,
                                        std::move(assembly.sockets));
    Acceptor::instance().claimConnection(listenId_, it->first, received->inbox());
    accepted_[it->first] = received->inbox();
    assemblies_.erase(it);
    *connection = received;
    return ncclSuccess;
  }
  return ncclSuccess;
}

}  // namespace flashccl::softbond
