// TCP backend: each rail carries chunks over several sockets ("streams", like NCCL's socket
// transport), each a byte stream of ChunkHeader + payload frames. The sender picks the stream
// with the least queued; the receiver reads each payload straight into NCCL's buffer.
#pragma once

#include <deque>
#include <memory>

#include "data_path.h"

namespace flashccl::softbond {

class TcpDataPath : public DataPath {
 public:
  explicit TcpDataPath(DataPathSetup setup);

  void addPollFds(std::vector<pollfd>* fds) override;
  bool progress(const std::vector<pollfd>& fds, ChunkSink* sink, std::string* why) override;
  bool ready() const override { return true; }
  bool canPut() const override;
  bool settled() const override;
  void put(const ChunkPut& chunk) override;
  void dropQueued() override;
  void release(uint64_t message) override;
  bool onControl(const ControlFrame&, std::vector<std::vector<uint8_t>>*, std::string* why) override;
  void openingMessages(std::vector<std::vector<uint8_t>>*) override {}
  void railFailed() override {}

  // Chunks a stream holds (one being written plus those waiting): enough to keep the socket
  // busy, few enough that a failure strands little.
  static constexpr size_t kQueueDepth = 4;

 private:
  struct Outgoing {
    ChunkPut chunk;
    uint8_t header[kChunkHeaderBytes];
    size_t sent = 0;          // header and payload bytes written
    bool zeroFill = false;    // the source was released: finish the frame with zeros
  };
  struct Incoming {
    uint8_t headerBytes[kChunkHeaderBytes];
    size_t headerGot = 0;
    ChunkHeader header;
    bool inPayload = false;
    bool placing = false;
    char* destination = nullptr;
    size_t payloadGot = 0;
  };
  struct Stream {
    Fd fd;
    std::deque<Outgoing> out;
    Incoming in;
    size_t pollIndex = 0;
  };

  bool send(Stream* stream, std::string* why);
  bool receive(Stream* stream, ChunkSink* sink, std::string* why);

  DataPathSetup setup_;
  std::vector<Stream> streams_;
  std::unique_ptr<char[]> scratch_;  // where discarded payload bytes go
};

class TcpBackend : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::kTcp; }
  int ptrSupport() const override { return NCCL_PTR_HOST; }
  int dataSockets(const Settings& settings) const override { return settings.streams; }
  ncclResult_t registerMemory(const std::vector<const NetInterface*>& rails, void* data, size_t size, int type,
                              int dmabufFd, uint64_t dmabufOffset, MemoryRegistration* reg) override;
  void deregisterMemory(MemoryRegistration*) override {}
  ncclResult_t createDataPath(DataPathSetup setup, std::unique_ptr<DataPath>* out) override;
};

}  // namespace flashccl::softbond
