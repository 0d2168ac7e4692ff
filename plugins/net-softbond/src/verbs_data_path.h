// One rail of a connection over an RC queue pair: a chunk is an RDMA write of its bytes into the
// buffer the receiver's CTS named, then a send of its 32-byte header; the queue pair's ordering
// guarantees the bytes are in place when the receiver sees the header. Both ends create their
// queue pair when the rail's sockets are installed and swap descriptions over the control socket.
#pragma once

#include <memory>

#include "data_path.h"
#include "verbs_backend.h"

namespace flashccl::softbond {

class VerbsDataPath : public DataPath {
 public:
  VerbsDataPath(const VerbsLibrary* verbs, VerbsDevice* device, DataPathSetup setup);
  ~VerbsDataPath() override;
  bool create(std::string* why);

  void addPollFds(std::vector<pollfd>* fds) override;
  bool progress(const std::vector<pollfd>& fds, ChunkSink* sink, std::string* why) override;
  bool ready() const override { return connected_; }
  bool canPut() const override { return connected_ && outstanding_ < kMaxOutstanding; }
  bool settled() const override { return connected_ && outstanding_ == 0; }
  void put(const ChunkPut& chunk) override;
  void dropQueued() override {}  // nothing waits in user space: a put is posted at once
  void release(uint64_t) override {}
  bool onControl(const ControlFrame& frame, std::vector<std::vector<uint8_t>>* replies, std::string* why) override;
  void openingMessages(std::vector<std::vector<uint8_t>>* messages) override;
  void railFailed() override;

  static constexpr int kMaxOutstanding = 64;   // chunks posted and not completed
  static constexpr int kReceiveSlots = 256;    // posted receives for chunk headers

 private:
  bool connect(const VerbsQpInfo& remote, std::string* why);
  bool postReceive(int slot);
  int gidIndex(const ibv_port_attr& port, bool* useGid);

  const VerbsLibrary* verbs_;
  VerbsDevice* device_;
  DataPathSetup setup_;
  uint8_t port_ = 1;
  uint32_t epoch_ = 0;
  ibv_comp_channel* channel_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
  ibv_mr* slotsMr_ = nullptr;
  std::unique_ptr<uint8_t[]> slots_;  // kReceiveSlots chunk headers
  VerbsQpInfo local_;
  bool connected_ = false;
  bool failed_ = false;
  int outstanding_ = 0;
  size_t pollIndex_ = 0;
  std::string error_;
};

}  // namespace flashccl::softbond
