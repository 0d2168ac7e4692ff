// The receiving side of a connection: each irecv is announced to the sender with a CTS (where the
// bytes go), chunks are placed by (message, offset) whichever rail they come by, every chunk is
// acknowledged, and a copy of a chunk already placed is dropped -- so NCCL sees each byte once, in
// its place, however often a failover resent it. Also where a connection's sockets arrive: the
// first ones from accept(), later ones (late rails, reconnections) through its inbox.
#pragma once

#include <deque>
#include <memory>

#include "connection.h"
#include "receive_window.h"

namespace flashccl::softbond {

class RecvConnection : public Connection, private ChunkSink {
 public:
  RecvConnection(uint64_t connId, const Bond& bond, const Hello& first, Backend* backend, const Settings& settings,
                 std::vector<AcceptedSocket> sockets);
  ~RecvConnection() override;
  const std::shared_ptr<SocketInbox>& inbox() const { return inbox_; }

 private:
  void accept(Request* request, int64_t nowMs) override;
  void onFrame(Rail& rail, const ControlFrame& frame, int64_t nowMs) override;
  void schedule(int64_t nowMs) override;
  void leftService(Rail& rail, int64_t nowMs) override;
  void rejoinedService(Rail&, int64_t) override {}
  bool hasPendingWork() const override;
  void failPending(ncclResult_t result) override;
  void beforePoll(int64_t nowMs) override;
  ChunkSink* sink() override { return this; }
  void beforeGoodbye(int64_t nowMs) override { flushAcks(nowMs); }

  Placement locate(const ChunkHeader& header, char** destination) override;
  bool stillWanted(const ChunkHeader& header) override;
  void arrived(int rail, const ChunkHeader& header, bool placed) override;
  bool arrivedRemote(int rail, const ChunkHeader& header) override;

  void adopt(AcceptedSocket socket, int64_t nowMs);
  void sendCts(ReceiveWindow::Posted& message, int64_t nowMs);
  void flushAcks(int64_t nowMs);

  std::shared_ptr<SocketInbox> inbox_;
  uint8_t laneCount_;
  ReceiveWindow window_;
  std::vector<std::vector<AckEntry>> acks_;  // per rail the chunk came by
};

}  // namespace flashccl::softbond
