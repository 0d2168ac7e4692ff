// The sending side of a connection: messages cut into chunks, chunks put on the least loaded rail
// in service, kept until the receiver acknowledges them, and put again on another rail when the
// rail they went by fails. A send request completes when every chunk of it is acknowledged, so
// NCCL never reuses a buffer that might still have to be resent.
#pragma once

#include <deque>
#include <map>

#include "connection.h"

namespace flashccl::softbond {

class SendConnection : public Connection, private ChunkSink {
 public:
  // `sockets[r]` holds rail r's connected sockets (control first), or nothing when the rail could
  // not be opened (`errors[r]` says why; it is retried every probe period).
  SendConnection(uint64_t connId, const Bond& bond, const ListenHandle& remote, Backend* backend,
                 const Settings& settings, std::vector<std::vector<Fd>> sockets, std::vector<std::string> errors);
  ~SendConnection() override;

  // Bytes in flight per rail beyond which a rail takes no more chunks: bounds what one failure
  // strands and has to resend.
  static constexpr uint64_t kMaxUnackedPerRail = 16u << 20;

 private:
  struct ChunkState {
    uint8_t onRails = 0;     // rails it was put on and that have not failed since
    uint8_t resentFrom = 0;  // rails whose failure made us resend it (their events wait for it)
    bool acked = false;
  };
  struct OutMessage {
    uint64_t index = 0;
    uint64_t size = 0;
    Request* request = nullptr;  // NULL once delivered or failed
    bool haveCts = false;
    bool active = false;     // cut into chunks (CTS and isend both known)
    Cts cts;
    uint32_t chunks = 0;
    uint32_t acked = 0;
    std::vector<ChunkState> state;
  };
  struct ChunkRef {
    uint64_t message;
    uint32_t chunk;
    bool operator<(const ChunkRef& other) const {
      return message != other.message ? message < other.message : chunk < other.chunk;
    }
  };

  void accept(Request* request, int64_t nowMs) override;
  void onFrame(Rail& rail, const ControlFrame& frame, int64_t nowMs) override;
  void schedule(int64_t nowMs) override;
  void leftService(Rail& rail, int64_t nowMs) override;
  void rejoinedService(Rail&, int64_t) override {}
  bool hasPendingWork() const override { return !window_.empty(); }
  void failPending(ncclResult_t result) override;
  void beforePoll(int64_t nowMs) override;
  ChunkSink* sink() override { return this; }
  void beforeGoodbye(int64_t) override {}

  // A sender's data path receives nothing; anything that arrives is a protocol violation.
  Placement locate(const ChunkHeader&, char**) override { return Placement::kReject; }
  bool stillWanted(const ChunkHeader&) override { return false; }
  void arrived(int, const ChunkHeader&, bool) override {}
  bool arrivedRemote(int, const ChunkHeader&) override { return false; }

  OutMessage* find(uint64_t index);
  void activate(OutMessage& message, int64_t nowMs);
  void onCts(Rail& rail, const Cts& cts, int64_t nowMs);
  void onAck(Rail& rail, const AckEntry& entry, int64_t nowMs);
  void finishEvent(Rail& rail, int64_t nowMs);
  uint32_t chunkLength(const OutMessage& message, uint32_t chunk) const;
  void retireCompleted();

  ListenHandle remote_;
  std::deque<OutMessage> window_;  // window_[i].index == firstIndex_ + i
  uint64_t firstIndex_ = 0;
  uint64_t nextIndex_ = 0;
  std::map<uint64_t, Cts> earlyCts_;  // CTS for messages NCCL has not sent yet
  std::deque<ChunkRef> pending_;      // chunks to put, oldest first
};

}  // namespace flashccl::softbond
