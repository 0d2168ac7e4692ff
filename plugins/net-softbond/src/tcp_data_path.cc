#include "tcp_data_path.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cstring>

#include "log.h"

namespace flashccl::softbond {
namespace {

constexpr size_t kScratchBytes = 64 * 1024;
// Bytes one stream may move per progress round before the others get their turn.
constexpr size_t kRoundBudget = 4u << 20;
const char kZeros[kScratchBytes] = {};

}  // namespace

TcpDataPath::TcpDataPath(DataPathSetup setup)
    : setup_(std::move(setup)), scratch_(new char[kScratchBytes]) {
  streams_.resize(setup_.sockets.size());
  for (size_t i = 0; i < streams_.size(); ++i) streams_[i].fd = std::move(setup_.sockets[i]);
  setup_.sockets.clear();
}

void TcpDataPath::addPollFds(std::vector<pollfd>* fds) {
  for (Stream& stream : streams_) {
    stream.pollIndex = fds->size();
    // Both ends watch for input: the receiver for chunks, the sender for the peer closing (a
    // sender's stream never legitimately carries anything back).
    short events = POLLIN;
    if (!stream.out.empty()) events |= POLLOUT;
    fds->push_back({stream.fd.get(), events, 0});
  }
}

bool TcpDataPath::canPut() const {
  return std::any_of(streams_.begin(), streams_.end(), [](const Stream& s) { return s.out.size() < kQueueDepth; });
}

bool TcpDataPath::settled() const {
  for (const Stream& stream : streams_) {
    int unacknowledged = 0;  // bytes in the kernel's send queue: unsent or not yet acknowledged
    if (!stream.out.empty() || ioctl(stream.fd.get(), SIOCOUTQ, &unacknowledged) != 0 || unacknowledged > 0)
      return false;
  }
  return true;
}

void TcpDataPath::put(const ChunkPut& chunk) {
  Stream* best = nullptr;
  for (Stream& stream : streams_)
    if (stream.out.size() < kQueueDepth && (!best || stream.out.size() < best->out.size())) best = &stream;
  Outgoing outgoing;
  outgoing.chunk = chunk;
  encodeChunkHeader(chunk.header, outgoing.header);
  best->out.push_back(outgoing);
}

void TcpDataPath::dropQueued() {
  for (Stream& stream : streams_) {
    while (!stream.out.empty() && stream.out.back().sent == 0) stream.out.pop_back();
  }
}

void TcpDataPath::release(uint64_t message) {
  for (Stream& stream : streams_) {
    for (auto it = stream.out.begin(); it != stream.out.end();) {
      if (it->chunk.header.message != message) {
        ++it;
      } else if (it->sent > 0) {
        it->zeroFill = true;
        ++it;
      } else {
        it = stream.out.erase(it);
      }
    }
  }
}

bool TcpDataPath::onControl(const ControlFrame&, std::vector<std::vector<uint8_t>>*, std::string* why) {
  *why = "control message for another backend";
  return false;
}

bool TcpDataPath::send(Stream* stream, std::string* why) {
  size_t budget = kRoundBudget;
  while (!stream->out.empty() && budget > 0) {
    Outgoing& head = stream->out.front();
    const size_t frameBytes = kChunkHeaderBytes + head.chunk.header.length;
    size_t sent = 0;
    int error = 0;
    IoStatus status;
    if (head.sent < kChunkHeaderBytes) {
      const char* payload = head.zeroFill ? kZeros : head.chunk.source;
      size_t payloadBytes = head.zeroFill ? std::min<size_t>(head.chunk.header.length, kScratchBytes)
                                          : head.chunk.header.length;
      status = writeTwo(stream->fd.get(), head.header + head.sent, kChunkHeaderBytes - head.sent, payload,
                        payloadBytes, &sent, &error);
    } else {
      size_t done = head.sent - kChunkHeaderBytes;
      size_t left = head.chunk.header.length - done;
      if (head.zeroFill) {
        status = writeSome(stream->fd.get(), kZeros, std::min(left, kScratchBytes), &sent, &error);
      } else {
        status = writeSome(stream->fd.get(), head.chunk.source + done, left, &sent, &error);
      }
    }
    if (status == IoStatus::kWouldBlock) return true;
    if (status != IoStatus::kProgress) {
      *why = std::string("send: ") + strerror(error);
      return false;
    }
    head.sent += sent;
    budget = sent >= budget ? 0 : budget - sent;
    if (head.sent == frameBytes) stream->out.pop_front();
  }
  return true;
}

bool TcpDataPath::receive(Stream* stream, ChunkSink* sink, std::string* why) {
  Incoming& in = stream->in;
  size_t budget = kRoundBudget;
  while (budget > 0) {
    size_t got = 0;
    int error = 0;
    IoStatus status;
    if (!in.inPayload) {
      status = readSome(stream->fd.get(), in.headerBytes + in.headerGot, kChunkHeaderBytes - in.headerGot, &got, &error);
    } else {
      size_t left = in.header.length - in.payloadGot;
      // Re-checked before every read: another rail may have completed this chunk, after which
      // the buffer is NCCL's again and the rest of this copy must go nowhere.
      if (in.placing && !sink->stillWanted(in.header)) in.placing = false;
      char* target = in.placing ? in.destination + in.payloadGot : scratch_.get();
      status = readSome(stream->fd.get(), target, in.placing ? left : std::min(left, kScratchBytes), &got, &error);
    }
    if (status == IoStatus::kWouldBlock) return true;
    if (status == IoStatus::kClosed) {
      *why = "peer closed the connection";
      return false;
    }
    if (status == IoStatus::kError) {
      *why = std::string("receive: ") + strerror(error);
      return false;
    }
    if (setup_.sender) {
      *why = "unexpected bytes on a sending stream";
      return false;
    }
    budget = got >= budget ? 0 : budget - got;
    if (!in.inPayload) {
      in.headerGot += got;
      if (in.headerGot < kChunkHeaderBytes) continue;
      const char* bad = nullptr;
      if (!decodeChunkHeader(in.headerBytes, setup_.chunkBytes, &in.header, &bad)) {
        *why = bad;
        return false;
      }
      Placement placement = sink->locate(in.header, &in.destination);
      if (placement == Placement::kReject) {
        *why = "chunk does not fit any posted receive";
        return false;
      }
      in.placing = placement == Placement::kPlace;
      in.inPayload = true;
      in.payloadGot = 0;
    } else {
      in.payloadGot += got;
    }
    if (in.inPayload && in.payloadGot == in.header.length) {
      sink->arrived(setup_.rail, in.header, in.placing);
      in = Incoming();
    }
  }
  return true;
}

bool TcpDataPath::progress(const std::vector<pollfd>& fds, ChunkSink* sink, std::string* why) {
  for (Stream& stream : streams_) {
    short revents = fds[stream.pollIndex].revents;
    if (revents & POLLNVAL) {
      *why = "socket closed";
      return false;
    }
    if ((revents & (POLLIN | POLLERR | POLLHUP)) && !receive(&stream, sink, why)) return false;
    if (!stream.out.empty() && !send(&stream, why)) return false;
  }
  return true;
}

ncclResult_t TcpBackend::registerMemory(const std::vector<const NetInterface*>&, void* data, size_t size, int type,
                                        int, uint64_t, MemoryRegistration* reg) {
  if (type != NCCL_PTR_HOST) {
    SB_WARN("the TCP backend takes host memory only (buffer type %d)", type);
    return ncclInternalError;
  }
  reg->data = static_cast<char*>(data);
  reg->size = size;
  reg->type = type;
  return ncclSuccess;
}

ncclResult_t TcpBackend::createDataPath(DataPathSetup setup, std::unique_ptr<DataPath>* out) {
  out->reset(new TcpDataPath(std::move(setup)));
  return ncclSuccess;
}

}  // namespace flashccl::softbond
