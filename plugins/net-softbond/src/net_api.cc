#include "net_api.h"

#include <cstring>
#include <mutex>
#include <set>

#include "check.h"
#include "clock.h"
#include "listen_endpoint.h"
#include "log.h"
#include "plugin_state.h"
#include "send_connection.h"

namespace flashccl::softbond::api {
namespace {

// A connect() in progress, remembered in the handle's scratch bytes between NCCL's retries.
struct PendingConnect {
  ListenHandle remote;
  uint64_t connId = 0;
  int dev = 0;
  int64_t startMs = 0;
  std::vector<RailDialer> dialers;
  std::vector<std::vector<Fd>> sockets;
  std::vector<std::string> errors;
  std::vector<int64_t> retryAtMs;
};

// A rail that cannot be reached at all is retried this long before connect() gives up.
constexpr int64_t kConnectDeadlineMs = 30000;
constexpr int64_t kDialRetryMs = 100;

std::mutex g_pendingMutex;
std::set<PendingConnect*> g_pending;  // to trust a pointer read back from a handle

PendingConnect* pendingFromHandle(uint8_t* handle) {
  PendingConnect* pending = nullptr;
  memcpy(&pending, handle + kHandleScratchOffset, sizeof(pending));
  if (!pending) return nullptr;
  std::lock_guard<std::mutex> lock(g_pendingMutex);
  return g_pending.count(pending) ? pending : nullptr;
}

void rememberInHandle(uint8_t* handle, PendingConnect* pending) {
  memcpy(handle + kHandleScratchOffset, &pending, sizeof(pending));
  std::lock_guard<std::mutex> lock(g_pendingMutex);
  if (pending) g_pending.insert(pending);
}

void forget(uint8_t* handle, PendingConnect* pending) {
  {
    std::lock_guard<std::mutex> lock(g_pendingMutex);
    g_pending.erase(pending);
  }
  PendingConnect* none = nullptr;
  memcpy(handle + kHandleScratchOffset, &none, sizeof(none));
  delete pending;
}

ncclResult_t checkDevice(int dev) {
  if (dev >= 0 && dev < static_cast<int>(pluginState().bonds.size())) return ncclSuccess;
  SB_WARN("no device %d", dev);
  return ncclInvalidArgument;
}

Hello helloFor(const PendingConnect& pending, int rail) {
  const PluginState& state = pluginState();
  Hello hello;
  hello.rail = static_cast<uint8_t>(rail);
  hello.laneCount = static_cast<uint8_t>(1 + state.backend->dataSockets(state.settings));
  hello.railCount = pending.remote.railCount;
  hello.backend = state.backend->kind();
  memcpy(hello.token, pending.remote.token, kTokenBytes);
  hello.listenId = pending.remote.listenId;
  hello.connId = pending.connId;
  hello.generation = 0;
  hello.chunkBytes = static_cast<uint32_t>(state.settings.chunkBytes);
  return hello;
}

ncclResult_t startConnect(int dev, uint8_t* handle, PendingConnect** out) {
  const PluginState& state = pluginState();
  auto pending = std::make_unique<PendingConnect>();
  const char* why = nullptr;
  if (!decodeHandle(handle, &pending->remote, &why)) {
    SB_WARN("connect: %s", why);
    return ncclInvalidUsage;
  }
  if (pending->remote.backend != state.backend->kind()) {
    SB_WARN("connect: the peer runs the %s backend, this process %s (FLASHCCL_SOFTBOND_BACKEND must match)",
            backendName(pending->remote.backend), backendName(state.backend->kind()));
    return ncclInvalidUsage;
  }
  if (!randomBytes(&pending->connId, sizeof(pending->connId))) return ncclSystemError;
  pending->dev = dev;
  pending->startMs = monotonicMs();
  const int rails = pending->remote.railCount;
  pending->dialers.resize(rails);
  pending->sockets.resize(rails);
  pending->errors.resize(rails);
  pending->retryAtMs.assign(rails, 0);
  *out = pending.release();
  rememberInHandle(handle, *out);
  return ncclSuccess;
}

}  // namespace

ncclResult_t init(ncclDebugLogger_t logger) { return initPlugin(logger); }

ncclResult_t devices(int* count) {
  *count = static_cast<int>(pluginState().bonds.size());
  return ncclSuccess;
}

ncclResult_t listen(int dev, void* handle, void** listenComm) {
  *listenComm = nullptr;
  SB_CHECK(checkDevice(dev));
  const PluginState& state = pluginState();
  std::unique_ptr<ListenEndpoint> endpoint;
  SB_CHECK(ListenEndpoint::open(dev, state.bonds[dev], state.backend, state.settings, static_cast<uint8_t*>(handle),
                                &endpoint));
  *listenComm = endpoint.release();
  return ncclSuccess;
}

ncclResult_t connect(int dev, void* handleBytes, void** sendComm) {
  *sendComm = nullptr;
  SB_CHECK(checkDevice(dev));
  auto* handle = static_cast<uint8_t*>(handleBytes);
  PendingConnect* pending = pendingFromHandle(handle);
  if (!pending) SB_CHECK(startConnect(dev, handle, &pending));

  const PluginState& state = pluginState();
  const Bond& bond = state.bonds[pending->dev];
  const int64_t nowMs = monotonicMs();
  int done = 0;
  for (size_t r = 0; r < pending->dialers.size(); ++r) {
    RailDialer& dialer = pending->dialers[r];
    if (!pending->sockets[r].empty()) {
      ++done;
      continue;
    }
    if (dialer.status() != RailDialer::Status::kInProgress && nowMs >= pending->retryAtMs[r]) {
      const NetInterface& local = bond.rails[r % bond.rails.size()];
      dialer.start(local.address, pending->remote.rails[r], helloFor(*pending, static_cast<int>(r)),
                   nowMs + state.settings.timeoutMs);
    }
    RailDialer::Status status = dialer.advance(nowMs);
    if (status == RailDialer::Status::kDone) {
      pending->sockets[r] = dialer.takeSockets();
      ++done;
    } else if (status == RailDialer::Status::kFailed) {
      pending->errors[r] = dialer.error();
      dialer.takeSockets();
      pending->retryAtMs[r] = nowMs + kDialRetryMs;
    }
  }
  const int64_t elapsed = nowMs - pending->startMs;
  const bool ready = done == static_cast<int>(pending->dialers.size()) || (done > 0 && elapsed >= state.settings.timeoutMs);
  if (!ready) {
    if (done == 0 && elapsed >= kConnectDeadlineMs) {
      SB_WARN("connect: no rail of %s reached the peer in %lld ms (rail 0: %s)", bond.name.c_str(),
              (long long)elapsed, pending->errors[0].c_str());
      forget(handle, pending);
      return ncclSystemError;
    }
    return ncclSuccess;  // NCCL calls again
  }
  for (size_t r = 0; r < pending->dialers.size(); ++r)
    if (pending->sockets[r].empty() && pending->errors[r].empty()) pending->errors[r] = "not connected in time";
  auto* connection = new SendConnection(pending->connId, bond, pending->remote, state.backend, state.settings,
                                        std::move(pending->sockets), std::move(pending->errors));
  forget(handle, pending);
  *sendComm = static_cast<Connection*>(connection);
  return ncclSuccess;
}

ncclResult_t accept(void* listenComm, void** recvComm) {
  *recvComm = nullptr;
  RecvConnection* connection = nullptr;
  SB_CHECK(static_cast<ListenEndpoint*>(listenComm)->accept(&connection));
  if (connection) *recvComm = static_cast<Connection*>(connection);
  return ncclSuccess;
}

ncclResult_t regMr(void* comm, void* data, size_t size, int type, void** mhandle) {
  return static_cast<Connection*>(comm)->registerMemory(data, size, type, -1, 0, mhandle);
}

ncclResult_t regMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t offset, int fd, void** mhandle) {
  return static_cast<Connection*>(comm)->registerMemory(data, size, type, fd, offset, mhandle);
}

ncclResult_t deregMr(void* comm, void* mhandle) { return static_cast<Connection*>(comm)->deregisterMemory(mhandle); }

ncclResult_t isend(void* sendComm, void* data, size_t size, void* mhandle, void** request) {
  auto* connection = static_cast<Connection*>(sendComm);
  if (!connection->sending()) {
    SB_WARN("isend on a receive comm");
    return ncclInternalError;
  }
  Request* submitted = nullptr;
  SB_CHECK(connection->submit(static_cast<char*>(data), size, static_cast<MemoryRegistration*>(mhandle), &submitted));
  *request = submitted;
  return ncclSuccess;
}

ncclResult_t irecv(void* recvComm, int n, void** data, const size_t* sizes, void** mhandles, void** request) {
  auto* connection = static_cast<Connection*>(recvComm);
  if (connection->sending() || n != 1) {
    // maxRecvs is 1: NCCL never groups receives for this plugin.
    SB_WARN("irecv of %d buffers on a %s comm", n, connection->sending() ? "send" : "receive");
    return ncclInternalError;
  }
  Request* submitted = nullptr;
  SB_CHECK(connection->submit(static_cast<char*>(data[0]), sizes[0],
                              static_cast<MemoryRegistration*>(mhandles ? mhandles[0] : nullptr), &submitted));
  *request = submitted;
  return ncclSuccess;
}

ncclResult_t iflush(void* recvComm, int n, void** data, int* sizes, void** mhandles, void** request) {
  (void)recvComm, (void)data, (void)sizes;
  *request = nullptr;  // nothing to flush for host memory: done at once
  for (int i = 0; i < n; ++i) {
    auto* registration = static_cast<MemoryRegistration*>(mhandles ? mhandles[i] : nullptr);
    if (registration && registration->type != NCCL_PTR_HOST) {
      // Making RDMA writes visible to the GPU needs a read through the NIC, which this plugin
      // does not do; wrong data must not pass for flushed data.
      SB_WARN("iflush of GPU memory is not supported; unset FLASHCCL_SOFTBOND_GDR on GPUs where NCCL flushes");
      return ncclInternalError;
    }
  }
  return ncclSuccess;
}

ncclResult_t test(void* request, int* done, int* sizes) {
  return Connection::test(static_cast<Request*>(request), done, sizes);
}

ncclResult_t closeSend(void* sendComm) {
  delete static_cast<Connection*>(sendComm);
  return ncclSuccess;
}

ncclResult_t closeRecv(void* recvComm) {
  delete static_cast<Connection*>(recvComm);
  return ncclSuccess;
}

ncclResult_t closeListen(void* listenComm) {
  delete static_cast<ListenEndpoint*>(listenComm);
  return ncclSuccess;
}

}  // namespace flashccl::softbond::api
