#include "msccl/program.h"

namespace flashccl::msccl {

const char* protocolName(Protocol proto) {
  switch (proto) {
    case Protocol::kSimple: return "Simple";
    case Protocol::kLL: return "LL";
    case Protocol::kLL128: return "LL128";
  }
  return "?";
}

char bufferLetter(BufferKind buf) {
  switch (buf) {
    case BufferKind::kInput: return 'i';
    case BufferKind::kOutput: return 'o';
    case BufferKind::kScratch: return 's';
  }
  return '?';
}

const char* stepTypeName(StepType type) {
  switch (type) {
    case StepType::kSend: return "s";
    case StepType::kRecv: return "r";
    case StepType::kRecvCopySend: return "rcs";
    case StepType::kRecvReduceSend: return "rrs";
    case StepType::kRecvReduceCopy: return "rrc";
    case StepType::kRecvReduceCopySend: return "rrcs";
    case StepType::kCopy: return "cpy";
    case StepType::kReduce: return "re";
    case StepType::kNop: return "nop";
  }
  return "?";
}

int ThreadBlock::transmissionOfStep(int s) const {
  for (size_t t = 0; t < transmissions.size(); ++t) {
    if (transmissions[t].firstStep <= s && s <= transmissions[t].step) return static_cast<int>(t);
  }
  return -1;
}

int Gpu::chunks(BufferKind buf) const {
  switch (buf) {
    case BufferKind::kInput: return inputChunks;
    case BufferKind::kOutput: return outputChunks;
    case BufferKind::kScratch: return scratchChunks;
  }
  return 0;
}

int Program::sizeMultiplier() const {
  if (collName == "allgather" || collName == "reducescatter" || collName == "reduce_scatter" ||
      collName == "alltoall") {
    return ngpus;
  }
  return 1;
}

}  // namespace flashccl::msccl
