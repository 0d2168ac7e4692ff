#include "runtime/call_header.h"

#include <cstdio>

namespace flashccl {

namespace {

// shape: kind bits 0-3, type 4-11, op class 12-15, algorithm 16-23. PreMulSum ops are handles
// that each rank numbers itself, so every one of them is one class.
constexpr uint32_t kOpClassPreMulSum = ncclNumOps;

uint32_t opClass(ncclRedOp_t op) { return op < ncclNumOps ? static_cast<uint32_t>(op) : kOpClassPreMulSum; }

const char* opClassName(uint32_t opClass) {
  return opClass >= kOpClassPreMulSum ? "premulsum" : redOpName(static_cast<ncclRedOp_t>(opClass));
}

}  // namespace

CallHeader makeCallHeader(const CollCall& call, uint64_t sequence, int algorithm) {
  CallHeader h;
  h.sequence = static_cast<uint32_t>(sequence);
  h.shape = (static_cast<uint32_t>(call.kind) & 0xf) | ((static_cast<uint32_t>(call.dtype) & 0xff) << 4) |
            ((call.kind == CollKind::kAllGather ? 0u : opClass(call.op) & 0xf) << 12) |
            ((static_cast<uint32_t>(algorithm) & 0xff) << 16);
  h.count = call.count;
  return h;
}

std::string describeCallHeader(const CallHeader& header) {
  // What a rank announces when a rank on another node called something else (device_comm.h).
  if (header.shape == kShapeRailDisagreement) return "(a call that a rank on another node disagrees with)";
  const CollKind kind = static_cast<CollKind>(header.shape & 0xf);
  const ncclDataType_t dtype = static_cast<ncclDataType_t>((header.shape >> 4) & 0xff);
  char text[160];
  if (kind == CollKind::kAllGather) {
    std::snprintf(text, sizeof(text), "%s(%llu x %s)", collKindTitle(kind),
                  static_cast<unsigned long long>(header.count), dtypeName(dtype));
  } else {
    std::snprintf(text, sizeof(text), "%s(%llu x %s, %s)", collKindTitle(kind),
                  static_cast<unsigned long long>(header.count), dtypeName(dtype),
                  opClassName((header.shape >> 12) & 0xf));
  }
  return text;
}

std::string describeMismatch(const void* comm, int rank, const DeviceErrorRecord& record) {
  const CallHeader& mine = record.mine;
  const CallHeader& theirs = record.theirs;
  std::string detail;
  if (mine.sequence != theirs.sequence) {
    detail = " (rank " + std::to_string(record.peer) + " was at call " + std::to_string(theirs.sequence) + ")";
  } else if (mine.shape == theirs.shape && mine.count == theirs.count) {
    detail = " (the same call, but different algorithms were chosen: flashccl settings differ between ranks)";
  } else if (((mine.shape ^ theirs.shape) & 0xffff) == 0 && mine.count == theirs.count) {
    detail = " (different algorithms were chosen: flashccl settings differ between ranks)";
  }
  char text[512];
  std::snprintf(text, sizeof(text),
                "comm %p: ranks called different collectives at call %u: rank %d %s vs rank %d %s%s; the "
                "communicator is unusable (ncclInvalidUsage), as after any asynchronous error",
                comm, mine.sequence, rank, describeCallHeader(mine).c_str(), record.peer,
                describeCallHeader(theirs).c_str(), detail.c_str());
  return text;
}

}  // namespace flashccl
