// The backend interface: how one rail of one connection moves chunks. Two backends implement it,
// TCP sockets (tcp_data_path.cc) and verbs RC queue pairs (verbs_data_path.cc). Everything above
// it -- chunking, acknowledgements, failover, rail probing -- is backend-independent and lives in
// the connection (connection.cc).
//
// A data path is one-directional: the connecting side puts chunks, the accepting side receives
// and places them. Control messages (CTS, ACK, heartbeats, the verbs queue-pair exchange) go over
// the rail's control socket, which the connection owns.
#pragma once

#include <poll.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net_interfaces.h"
#include "rail_spec.h"
#include "settings.h"
#include "tcp_socket.h"
#include "wire_format.h"

namespace flashccl::softbond {

// One regMr: the buffer and, for backends that need them, keys per rail of the connection.
struct MemoryRegistration {
  char* data = nullptr;
  size_t size = 0;
  int type = NCCL_PTR_HOST;
  uint32_t localKeys[kMaxRailsPerBond] = {};
  uint32_t remoteKeys[kMaxRailsPerBond] = {};
  void* backendObjects[kMaxRailsPerBond] = {};  // verbs: ibv_mr* per rail
};

// A chunk to send on a rail: `header.length` bytes from `source` to offset `header.offset` of the
// receiver's buffer for `header.message`.
struct ChunkPut {
  ChunkHeader header;
  const char* source = nullptr;
  uint32_t localKey = 0;       // verbs
  uint64_t remoteAddress = 0;  // verbs: receiver's buffer + offset
  uint32_t remoteKey = 0;      // verbs
};

enum class Placement { kPlace, kDiscard, kReject };

// The receiving connection, as a data path sees it.
class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  // A chunk header arrived: place it (at *destination), discard it (a copy we already have) or
  // reject it (a protocol violation: the rail is then treated as failed).
  virtual Placement locate(const ChunkHeader& header, char** destination) = 0;
  // Asked before every further read into a destination: a copy on another rail may have
  // completed the chunk meanwhile, after which NCCL may own the buffer again.
  virtual bool stillWanted(const ChunkHeader& header) = 0;
  // The whole chunk is in (placed, or read and dropped): acknowledge it.
  virtual void arrived(int rail, const ChunkHeader& header, bool placed) = 0;
  // Backends that write remote memory: the peer has written this chunk into the buffer its CTS
  // named and then told us so. False on a protocol violation.
  virtual bool arrivedRemote(int rail, const ChunkHeader& header) = 0;
};

class DataPath {
 public:
  virtual ~DataPath() = default;

  // Appends the descriptors to poll.
  virtual void addPollFds(std::vector<pollfd>* fds) = 0;
  // Advances I/O after poll(). Returns false when the rail is broken, with *why.
  virtual bool progress(const std::vector<pollfd>& fds, ChunkSink* sink, std::string* why) = 0;

  // Sender side.
  virtual bool ready() const = 0;   // connected and able to carry chunks
  virtual bool canPut() const = 0;  // room for another chunk now
  // Nothing of ours still on its way: what was queued before a failure has left (or been
  // flushed). A rail rejoins service only when settled, so new chunks do not queue behind stale
  // bytes that the transport is still retrying with a backed-off timer.
  virtual bool settled() const = 0;
  virtual void put(const ChunkPut& chunk) = 0;
  // Chunks queued but not started are forgotten (the connection resends them elsewhere); one
  // that is half on the wire is finished later, so the byte stream stays whole.
  virtual void dropQueued() = 0;
  // NCCL may reuse the message's buffer from now on: never read from it again.
  virtual void release(uint64_t message) = 0;

  // Control messages for this backend (verbs: queue-pair exchange). Replies go into `replies`;
  // the connection sends them on the rail's control socket. Returns false on a malformed or unexpected message.
  virtual bool onControl(const ControlFrame& frame, std::vector<std::vector<uint8_t>>* replies, std::string* why) = 0;
  // Messages to send once the control socket is up (verbs: our queue-pair description).
  virtual void openingMessages(std::vector<std::vector<uint8_t>>* messages) = 0;
  // The rail was declared failed: stop anything still in flight on it (verbs: QP to error, so a
  // late write cannot land in a buffer NCCL owns again).
  virtual void railFailed() = 0;
};

struct DataPathSetup {
  int rail = 0;                        // index within the connection
  const NetInterface* local = nullptr;
  bool sender = false;
  size_t chunkBytes = 0;
  uint32_t generation = 0;
  std::vector<Fd> sockets;             // TCP data sockets (lanes 1..n), connected and past the hello
  const Settings* settings = nullptr;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual int ptrSupport() const = 0;
  // TCP data sockets per rail this backend wants besides the control socket.
  virtual int dataSockets(const Settings& settings) const = 0;
  virtual ncclResult_t registerMemory(const std::vector<const NetInterface*>& rails, void* data, size_t size,
                                      int type, int dmabufFd, uint64_t dmabufOffset, MemoryRegistration* reg) = 0;
  virtual void deregisterMemory(MemoryRegistration* reg) = 0;
  virtual ncclResult_t createDataPath(DataPathSetup setup, std::unique_ptr<DataPath>* out) = 0;
};

}  // namespace flashccl::softbond
