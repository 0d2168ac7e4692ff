// A parsed MSCCL algorithm program (msccl-format.md §1-§2): the XML as written, plus each thread
// block's transmissions exactly as the reference executor decodes them (§2.4).
//
// Everything is plain structs of ints and vectors so that the GPU executor can flatten a Program
// into device arrays in one pass: per rank, tb i is threadBlocks[i], and its work is the list of
// transmissions. The XML steps are kept beside them for messages and for the validator.
//
// A Program straight from the parser is well-formed XML with every attribute present and of the
// right kind; only validateProgram() (validator.h) makes it safe to run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/coll_call.h"
#include "base/host_device.h"

namespace flashccl::msccl {

enum class Protocol : int { kSimple = 0, kLL = 1, kLL128 = 2 };
const char* protocolName(Protocol proto);  // "Simple", "LL", "LL128": the XML spelling

// The three buffers a step may name. They are always the executing rank's own buffers, whatever
// the generator meant (msccl-format.md §1.5 caveat): data crosses ranks only through send/recv.
enum class BufferKind : int { kInput = 0, kOutput = 1, kScratch = 2 };
char bufferLetter(BufferKind buf);  // 'i', 'o', 's'

enum class StepType : int {
  kSend = 0,                // s:    send src to the send peer
  kRecv = 1,                // r:    receive into dst
  kRecvCopySend = 2,        // rcs:  receive, store in dst, forward
  kRecvReduceSend = 3,      // rrs:  receive, op(recv, src), forward; nothing stored
  kRecvReduceCopy = 4,      // rrc:  dst = op(recv, src)
  kRecvReduceCopySend = 5,  // rrcs: dst = op(recv, src), and forward it
  kCopy = 6,                // cpy:  dst = src
  kReduce = 7,              // re:   dst = op(dst, src...), consecutive re steps fused
  kNop = 8,                 // nop:  carries one dependency, folded into the next step
};
const char* stepTypeName(StepType type);  // the XML spelling: "s", "rrcs", "nop", ...

// What a step type touches. Only these operands are bounds-checked and simulated: the other
// fields of a step may hold another rank's coordinates (TL writes them), which no one reads.
// Host and device: the executor kernel asks the same questions.
FLASHCCL_HOST_DEVICE inline bool stepSends(StepType type) {
  return type == StepType::kSend || type == StepType::kRecvCopySend ||
         type == StepType::kRecvReduceSend || type == StepType::kRecvReduceCopySend;
}
FLASHCCL_HOST_DEVICE inline bool stepReceives(StepType type) {
  return type == StepType::kRecv || type == StepType::kRecvCopySend ||
         type == StepType::kRecvReduceSend || type == StepType::kRecvReduceCopy ||
         type == StepType::kRecvReduceCopySend;
}
FLASHCCL_HOST_DEVICE inline bool stepReadsSource(StepType type) {
  return type == StepType::kSend || type == StepType::kRecvReduceSend ||
         type == StepType::kRecvReduceCopy || type == StepType::kRecvReduceCopySend ||
         type == StepType::kCopy || type == StepType::kReduce;
}
FLASHCCL_HOST_DEVICE inline bool stepWritesDestination(StepType type) {
  return type == StepType::kRecv || type == StepType::kRecvCopySend ||
         type == StepType::kRecvReduceCopy || type == StepType::kRecvReduceCopySend ||
         type == StepType::kCopy || type == StepType::kReduce;
}

// Wait until thread block `tb` of the same rank has published XML step `step` (hasdep=1 there).
struct Dependency {
  int tb = -1;
  int step = -1;
  bool operator==(const Dependency& o) const { return tb == o.tb && step == o.step; }
};

// One <step> element, as written.
struct Step {
  int s = 0;
  StepType type = StepType::kNop;
  BufferKind srcBuf = BufferKind::kInput;
  int srcOff = 0;
  BufferKind dstBuf = BufferKind::kInput;
  int dstOff = 0;
  int count = 0;
  int depTb = -1;    // depid
  int depStep = -1;  // deps
  bool hasDep = false;
  int line = 0;
};

// One unit of work of a thread block, as the executor runs it: nop chains folded into the next
// real step's dependency list, consecutive re steps fused into one multi-source reduction.
struct Transmission {
  StepType type = StepType::kNop;  // never kNop once decoded
  int firstStep = 0;  // XML s of the first step folded in (the first nop of a chain, or itself)
  int step = 0;       // XML s it publishes when hasDep: the last step folded in (§2.4)
  bool hasDep = false;
  std::vector<Dependency> deps;  // all waited on before it starts, in XML order
  BufferKind srcBuf = BufferKind::kInput;
  int srcOff = 0;  // for re, the first source; reduceSrcOffs has them all
  BufferKind dstBuf = BufferKind::kInput;
  int dstOff = 0;
  int count = 0;  // consecutive chunks
  // re only: srcoff of every fused step in order (1..kMaxReduceFusion); dst = op(dst, src...).
  std::vector<int> reduceSrcOffs;
  int line = 0;  // line of its first non-nop step
};

// The executor fuses at most this many re steps into one reduction (MSCCL_MAX_REDUCE_FUSION).
constexpr int kMaxReduceFusion = 16;

struct ThreadBlock {
  int id = 0;
  int sendPeer = -1;
  int recvPeer = -1;
  int channel = 0;
  int line = 0;
  std::vector<Step> steps;
  std::vector<Transmission> transmissions;

  // The transmission that contains XML step s, or -1.
  int transmissionOfStep(int s) const;
};

struct Gpu {
  int id = 0;
  int inputChunks = 0;    // i_chunks
  int outputChunks = 0;   // o_chunks
  int scratchChunks = 0;  // s_chunks
  int line = 0;
  std::vector<ThreadBlock> threadBlocks;  // sorted by id; threadBlocks[i].id == i once validated

  int chunks(BufferKind buf) const;
};

struct Program {
  std::string file;  // path, or the name given to parseProgramString; prefixes every message
  int line = 0;      // of <algo>
  uint64_t sourceHash = 0;  // FNV-1a of the XML text: ranks compare it (the same name, another file)

  std::string name;      // free text, optional
  std::string collName;  // as written, e.g. "reduce_scatter"
  // Set for the collectives flashccl runs (allreduce, allgather, reducescatter/reduce_scatter).
  // Empty for the others (reduce, broadcast, alltoall, ...): they parse and validate, but the
  // selection never picks them and the simulator cannot check what they compute.
  std::optional<CollKind> coll;
  Protocol proto = Protocol::kSimple;
  int nchannels = 0;
  int nchunksperloop = 0;
  int ngpus = 0;
  bool inplace = false;
  bool outofplace = false;
  int64_t minBytes = 0;
  int64_t maxBytes = 0;  // 0: no upper bound
  std::vector<Gpu> gpus;  // sorted by id; gpus[r].id == r once validated

  // How many times the API count the whole buffer is: ngpus for allgather, reducescatter and
  // alltoall, 1 otherwise (msccl-format.md §1.2). Chunk size = count*sizeMultiplier/nchunksperloop.
  int sizeMultiplier() const;
};

}  // namespace flashccl::msccl
