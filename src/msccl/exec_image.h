// One rank's part of a validated Program, flattened into the plain arrays the GPU executor reads
// (executor.cu), plus the per-call arithmetic that both supports() and launch() need.
//
// The image is built on the host once per communicator and copied to the device at set-up. It is
// a single blob: the header, then thread blocks, transmissions, dependencies and re sources, each
// array addressed by an offset from the start of the blob, so one pointer reaches everything.
//
// Connection streams (LL and LL128): a launch never reuses packet space. Every connection
// (channel, sender -> receiver) gets its own stretch of the receiver's packet slot for that
// sender, sized by how many chunks the connection carries per launch; every rank computes the same
// stretches from the whole Program, so sender and receiver agree without talking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/host_device.h"
#include "msccl/program.h"
#include "transport/p2p/buffer_layout.h"

namespace flashccl::msccl {

// A transmission as the kernel reads it (16 bytes).
struct ExecStep {
  uint8_t type;          // StepType, never kNop
  uint8_t srcBuf;        // BufferKind
  uint8_t dstBuf;        // BufferKind
  uint8_t count;         // chunks (1..71)
  int16_t srcOff;        // chunk index
  int16_t dstOff;
  int16_t publishStep;   // XML s published when done; -1: publishes nothing
  uint16_t depBegin;     // index into the dependency array
  uint8_t depCount;
  uint8_t reduceCount;   // re: number of sources (>= 1)
  uint16_t reduceBegin;  // re: index into the source offsets
};

struct ExecDependency {
  int16_t tb;
  int16_t step;
};

struct ExecThreadBlock {
  uint16_t stepBegin;
  uint16_t stepCount;
  int8_t sendPeer;    // rank or -1
  int8_t recvPeer;
  uint16_t channel;   // the XML chan: picks the chunk lane of Simple connections
  // LL / LL128: where this tb's send and receive streams start inside the packet slot of the
  // (sender, receiver) pair, in chunks (times the per-chunk packet stride of the call).
  uint32_t sendStreamChunk;
  uint32_t recvStreamChunk;
};

struct ExecImageHeader {
  uint32_t totalBytes;       // of the whole blob
  int32_t threadBlocks;
  int32_t proto;             // Protocol
  int32_t nchunksperloop;
  uint32_t threadBlockOffset;  // byte offsets from the start of the blob
  uint32_t stepOffset;
  uint32_t dependencyOffset;
  uint32_t reduceOffset;
};

FLASHCCL_HOST_DEVICE inline const ExecThreadBlock* imageThreadBlocks(const ExecImageHeader* h) {
  return reinterpret_cast<const ExecThreadBlock*>(reinterpret_cast<const char*>(h) + h->threadBlockOffset);
}
FLASHCCL_HOST_DEVICE inline const ExecStep* imageSteps(const ExecImageHeader* h) {
  return reinterpret_cast<const ExecStep*>(reinterpret_cast<const char*>(h) + h->stepOffset);
}
FLASHCCL_HOST_DEVICE inline const ExecDependency* imageDependencies(const ExecImageHeader* h) {
  return reinterpret_cast<const ExecDependency*>(reinterpret_cast<const char*>(h) + h->dependencyOffset);
}
FLASHCCL_HOST_DEVICE inline const int16_t* imageReduceOffsets(const ExecImageHeader* h) {
  return reinterpret_cast<const int16_t*>(reinterpret_cast<const char*>(h) + h->reduceOffset);
}

// What the image of one rank needs from the call side, the same on every rank.
struct ExecProgramFacts {
  int threadBlocks = 0;        // most thread blocks of any rank
  int maxChannel = 0;          // largest chan of a tb that sends or receives
  int scratchChunks = 0;       // most s_chunks of any rank
  // Chunks all connections of one (sender, receiver) pair carry per launch, most over pairs: the
  // LL / LL128 packet slot must hold that many chunks of packets.
  uint32_t maxPairStreamChunks = 0;
};

// Flattens rank `rank` of a validated program. Empty vector and *error when the program does not
// fit the executor (more than kMaxExecThreadBlocks tbs, more than 65535 transmissions, ...).
std::vector<char> buildExecImage(const Program& program, int rank, std::string* error);
ExecProgramFacts programFacts(const Program& program);

// --- per call ---------------------------------------------------------------------------------

// Bytes of packet space one chunk of `chunkBytes` needs in a connection stream.
FLASHCCL_HOST_DEVICE inline size_t llChunkStride(size_t chunkBytes) { return (chunkBytes + 7) / 8 * 16; }
FLASHCCL_HOST_DEVICE inline size_t ll128ChunkStride(size_t chunkBytes) {
  return (chunkBytes + 119) / 120 * 128;
}

struct ExecCallShape {
  size_t chunkBytes = 0;  // S: bytes of one MSCCL chunk
  size_t tileBytes = 0;   // bytes of each chunk moved per iteration (Simple); chunkBytes otherwise
  uint32_t iterations = 0;
  size_t scratchBytes = 0;
};

// The shape of a call moving `totalBytes` (count x type size x sizeMultiplier) with `elemBytes`
// elements, or false with *why when this program cannot run it on this layout: chunks that do
// not divide evenly, packets that do not fit the slots, channels beyond the chunk lanes,
// more scratch than `scratchCapacity`.
bool shapeCall(const Program& program, const ExecProgramFacts& facts, const BufferLayout& layout,
               size_t totalBytes, size_t elemBytes, size_t scratchCapacity, ExecCallShape* shape,
               const char** why);

}  // namespace flashccl::msccl
