// The net plugin's wire format (docs/design.md: softbond): what a peer or the network sends it.
// The first byte picks the message: the 128-byte connection handle NCCL carries between ranks,
// a socket's 64-byte Hello, a control stream cut into pieces of the sizes the input says (each
// complete frame then decoded by its type), or a stream of chunk headers placed in a receive
// window with posted buffers, as the receive path does.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "control_channel.h"
#include "fuzz_input.h"
#include "receive_window.h"
#include "request.h"
#include "wire_format.h"

using namespace flashccl::softbond;
using flashccl::fuzz::FuzzInput;

namespace {

void controlStream(FuzzInput& in) {
  ControlReader reader;
  std::vector<ControlFrame> frames;
  const char* why = nullptr;
  while (!in.empty()) {
    size_t got = 0;
    const uint8_t* piece = in.take(1 + in.byte() % 64, &got);
    if (!reader.feed(piece, got, &frames, &why)) break;
  }
  for (const ControlFrame& frame : frames) {
    Cts cts;
    std::vector<AckEntry> acks;
    uint8_t rail = 0;
    VerbsQpInfo qp;
    switch (frame.type) {
      case ControlType::kCts: (void)decodeCts(frame, &cts); break;
      case ControlType::kAck: (void)decodeAck(frame, &acks); break;
      case ControlType::kRailDown: (void)decodeRailDown(frame, &rail); break;
      case ControlType::kVerbsQp: (void)decodeVerbsQp(frame, &qp); break;
      default: break;
    }
  }
}

// Buffers posted by the input (at most four, at most 64 KiB each), then chunk headers: a placed
// chunk is written in full where the window says, so ASan sees any write outside a buffer.
void receiveWindow(FuzzInput& in) {
  const size_t chunkBytes = kMinChunkBytes << (in.byte() % 3);
  ReceiveWindow window(chunkBytes);
  Request requests[4];
  std::vector<std::unique_ptr<char[]>> buffers;
  const int posts = 1 + in.byte() % 4;
  for (int i = 0; i < posts; ++i) {
    const uint64_t capacity = in.u32() % (64 * 1024 + 1);
    buffers.emplace_back(new char[capacity ? capacity : 1]);
    window.post(&requests[i], buffers.back().get(), capacity);
  }
  while (in.left() >= kChunkHeaderBytes) {
    uint8_t bytes[kChunkHeaderBytes];
    in.fill(bytes, sizeof(bytes));
    ChunkHeader header;
    const char* why = nullptr;
    if (!decodeChunkHeader(bytes, chunkBytes, &header, &why)) continue;
    char* destination = nullptr;
    if (window.locate(header, &destination) != Placement::kPlace) continue;
    std::memset(destination, 0x5a, header.length);
    (void)window.stillWanted(header);
    uint64_t done = 0;
    (void)window.markPlaced(header, &done);
  }
  (void)window.pending();
  (void)window.abandon();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const char* why = nullptr;
  switch (in.byte() % 4) {
    case 0: {
      uint8_t bytes[kHandleBytes];
      in.fill(bytes, sizeof(bytes));
      ListenHandle handle;
      (void)decodeHandle(bytes, &handle, &why);
      break;
    }
    case 1: {
      uint8_t bytes[kHelloBytes];
      in.fill(bytes, sizeof(bytes));
      Hello hello;
      (void)decodeHello(bytes, &hello, &why);
      break;
    }
    case 2: controlStream(in); break;
    default: receiveWindow(in); break;
  }
  return 0;
}
