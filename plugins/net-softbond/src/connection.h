// One NCCL connection (a send comm or a receive comm) over a bond: its rails, the thread that
// moves its bytes, and the rules by which rails leave and rejoin service. What is particular to
// sending or receiving is in SendConnection and RecvConnection.
//
// A rail is "in service" while it carries chunks, CTS and acknowledgements. It leaves service on a
// socket error, a protocol error, no heartbeat from the peer for FLASHCCL_SOFTBOND_TIMEOUT_MS,
// sent chunks unacknowledged that long, or the peer saying it has failed it. Its sockets are
// kept if they are still open (a link that went down comes back with its TCP state) and the rail
// is probed with heartbeats; else the sending side reconnects it every FLASHCCL_SOFTBOND_PROBE_MS.
// It rejoins service after hearing the peer steadily for FLASHCCL_SOFTBOND_PROBE_MS. Only when no
// rail is in service do pending requests fail.
//
// NCCL's threads call submit() and Connection::test(); everything else runs on the connection's
// own progress thread, so the state below needs no lock except the submission queue. The thread
// keeps running while NCCL is busy elsewhere: heartbeats and acknowledgements never wait for NCCL
// to call in.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "acceptor.h"
#include "bond_table.h"
#include "control_channel.h"
#include "data_path.h"
#include "rail_dialer.h"
#include "request.h"
#include "settings.h"

namespace flashccl::softbond {

// One rail failure, from detection until every byte it stranded has been delivered on other rails.
struct FailoverEvent {
  bool open = false;
  int64_t detectedMs = 0;
  int64_t lastProgressMs = 0;      // the rail's last acknowledgement (or heartbeat) before it failed
  std::string reason;
  uint64_t bytesResent = 0;
  uint32_t chunksResent = 0;
  uint32_t chunksUndelivered = 0;  // resent chunks not yet acknowledged
};

struct Rail {
  int index = 0;
  NetInterface local;
  SockAddr remote;                  // peer's listener (sender) or the peer's address (receiver)
  ControlChannel control;
  std::unique_ptr<DataPath> data;
  uint32_t generation = 0;          // counts reconnections
  size_t controlPollIndex = 0;
  bool polled = false;              // has entries in this round's poll set

  bool inService = false;
  bool everHeard = false;
  int64_t lastHeardMs = 0;
  int64_t lastPingMs = 0;
  int64_t peerDownNoticeMs = -1000000;
  int64_t healthySinceMs = 0;
  int64_t outOfServiceSinceMs = 0;
  bool outByPeer = false;           // left service because the peer said so (not echoed back)
  std::string reason;
  int faultEpochSeen = 0;

  // Sending side.
  uint64_t unackedBytes = 0;
  int64_t lastAckMs = 0;            // or when the first unacknowledged chunk went out
  uint64_t bytesPut = 0;
  uint64_t bytesPutAtRejoin = 0;    // bytesPut when it last rejoined service
  bool rejoined = false;
  RailDialer dialer;
  int64_t nextDialMs = 0;
  FailoverEvent event;

  // Receiving side: sockets of a (re)connection still arriving, by generation then lane.
  std::map<uint32_t, std::map<uint8_t, Fd>> arriving;
};

class Connection {
 public:
  virtual ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // NCCL's thread: queue a send or a receive. *request is NULL when the pool is full.
  ncclResult_t submit(char* data, size_t size, MemoryRegistration* registration, Request** request);
  static ncclResult_t test(Request* request, int* done, int* size);

  ncclResult_t registerMemory(void* data, size_t size, int type, int dmabufFd, uint64_t offset, void** handle);
  ncclResult_t deregisterMemory(void* handle);

  // Says goodbye to the peer, stops the thread and closes every socket.
  void close();
  bool sending() const { return sending_; }

 protected:
  Connection(bool sending, uint64_t connId, const Bond& bond, int railCount, Backend* backend,
             const Settings& settings);
  void startThread();

  // Role hooks, all on the progress thread.
  virtual void accept(Request* request, int64_t nowMs) = 0;
  virtual void onFrame(Rail& rail, const ControlFrame& frame, int64_t nowMs) = 0;
  virtual void schedule(int64_t nowMs) = 0;
  virtual void leftService(Rail& rail, int64_t nowMs) = 0;
  virtual void rejoinedService(Rail& rail, int64_t nowMs) = 0;
  virtual bool hasPendingWork() const = 0;
  virtual void failPending(ncclResult_t result) = 0;
  virtual void beforePoll(int64_t nowMs) = 0;
  virtual ChunkSink* sink() = 0;
  // Last chance to queue control messages before goodbye (receiver: outstanding acknowledgements).
  virtual void beforeGoodbye(int64_t nowMs) = 0;

  void complete(Request* request, size_t bytes);
  void fail(Request* request, ncclResult_t result);
  // The rail's sockets are unusable: close them and take it out of service.
  void railBroken(Rail& rail, const std::string& why, int64_t nowMs);
  void takeOutOfService(Rail& rail, const std::string& why, int64_t nowMs, bool byPeer);
  void heard(Rail& rail, int64_t nowMs);
  bool sendControl(Rail& rail, std::vector<uint8_t> message, int64_t nowMs);
  // A control message for the rail's backend (verbs: the queue-pair exchange), with its replies.
  void passToBackend(Rail& rail, const ControlFrame& frame, int64_t nowMs);
  // A rail in service for control messages, `preferred` if it is; NULL when none is.
  Rail* controlRail(int preferred);
  // Installs freshly connected sockets as the rail's new generation (out of service until it
  // proves itself for the probe time).
  void installSockets(Rail& rail, uint32_t generation, std::vector<Fd> sockets, int64_t nowMs);
  std::string railName(const Rail& rail) const;
  int pingIntervalMs() const;

  const bool sending_;
  const uint64_t connId_;
  const Bond bond_;
  Backend* const backend_;
  const Settings settings_;
  std::vector<Rail> rails_;
  bool broken_ = false;             // every rail failed with work pending: requests fail from now on
  ncclResult_t brokenResult_ = ncclSystemError;
  bool peerClosed_ = false;         // the peer said goodbye: its sockets closing is no failure
  Fd wakeFd_;

 private:
  void run();
  void round(int64_t nowMs);
  void checkRail(Rail& rail, int64_t nowMs);
  void checkWholeBond(int64_t nowMs);
  void sendHeartbeats(int64_t nowMs);
  void pollAndServe(int64_t nowMs);
  void serveRail(Rail& rail, const std::vector<pollfd>& fds, int64_t nowMs);
  void sayGoodbye();

  RequestPool requests_;
  std::mutex submitMutex_;
  std::deque<Request*> submitted_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex registrationMutex_;
  std::vector<std::unique_ptr<MemoryRegistration>> registrations_;
};

}  // namespace flashccl::softbond
