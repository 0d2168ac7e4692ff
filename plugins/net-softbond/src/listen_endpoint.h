// listen() and accept(): a listen endpoint owns a random token and a listen id, published in the
// handle together with the address of each rail's listening socket. accept() gathers the
// sockets the acceptor routes to it, by connection id, into RecvConnections.
#pragma once

#include <map>
#include <memory>

#include "recv_connection.h"

namespace flashccl::softbond {

class ListenEndpoint {
 public:
  static ncclResult_t open(int dev, const Bond& bond, Backend* backend, const Settings& settings,
                           uint8_t handle[kHandleBytes], std::unique_ptr<ListenEndpoint>* out);
  // Never blocks: *connection stays NULL until a connection's sockets have arrived.
  ncclResult_t accept(RecvConnection** connection);

 private:
  struct Assembly {
    Hello first;
    int64_t firstMs = 0;
    std::vector<AcceptedSocket> sockets;
  };
  // Unfinished connections older than this are dropped (their peer gave up).
  static constexpr int64_t kAssemblyLifetimeMs = 60000;
  static constexpr size_t kMaxAssemblies = 256;

  ListenEndpoint() = default;
  bool matchesUs(const Hello& hello, const SockAddr& peer) const;

  Bond bond_;
  Backend* backend_ = nullptr;
  Settings settings_;
  uint64_t listenId_ = 0;
  std::shared_ptr<SocketInbox> inbox_;
  std::map<uint64_t, Assembly> assemblies_;
  std::map<uint64_t, std::weak_ptr<SocketInbox>> accepted_;  // for sockets that come after accept()
};

// Random bytes from the kernel (tokens and ids); false if none could be had.
bool randomBytes(void* out, size_t length);

}  // namespace flashccl::softbond
