// The vocabulary of the flight recorder: every NCCL call that can be made on a communicator, as
// the runtime hands it over (TraceCall) and as the recorder keeps it (RecordedCall).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nccl.h>

#include "base/coll_call.h"

namespace flashccl {

enum class TraceKind : uint8_t {
  kAllReduce = 0,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kGather,
  kScatter,
  kSend,
  kRecv,
  kGroupStart,
  kGroupEnd,
};
constexpr int kNumTraceKinds = 12;

const char* traceKindName(TraceKind kind);  // "AllReduce", as NCCL's API names it
// PyTorch Flight Recorder's profiling_name for the same call ("nccl:all_reduce").
const char* profilingName(TraceKind kind);
// Parses either name back; false for anything else.
bool parseTraceKind(const char* name, TraceKind* kind);

inline bool isP2p(TraceKind kind) { return kind == TraceKind::kSend || kind == TraceKind::kRecv; }
inline bool isGroupMark(TraceKind kind) {
  return kind == TraceKind::kGroupStart || kind == TraceKind::kGroupEnd;
}
inline bool isCollective(TraceKind kind) { return !isP2p(kind) && !isGroupMark(kind); }
// Collectives whose call names a reduction operator.
bool takesRedOp(TraceKind kind);
// Collectives whose `peer` field is a root.
bool takesRoot(TraceKind kind);
TraceKind traceKindOf(CollKind kind);

// One call as the runtime records it. Plain data, no ownership: `algorithm` must point to a
// string that lives as long as the process (an Algorithm's name()).
struct TraceCall {
  TraceKind kind = TraceKind::kAllReduce;
  bool grouped = false;    // made between ncclGroupStart and ncclGroupEnd
  bool captured = false;   // made while its stream was capturing a CUDA graph: it runs at replay,
                           // which the recorder does not see, so it is never "pending"
  int32_t dtype = 0;       // ncclDataType_t
  int32_t op = -1;         // ncclRedOp_t; -1 for calls without one
  int32_t peer = -1;       // root (Broadcast, Reduce, Gather, Scatter) or peer (Send, Recv)
  uint64_t count = 0;      // as in the API (AllGather: sendcount, ReduceScatter: recvcount)
  const void* stream = nullptr;
  const char* algorithm = nullptr;  // nullptr: forwarded to NCCL
  uint64_t launch = 0;     // our call's sequence number on the communicator (what our kernels
                           // stamp: launch_protocol.cuh); 0 when forwarded
};

// What the recorder keeps of a data type or operator the application passed that NCCL does not
// have (NCCL refuses that call, but the recorder has it already): -1, "unknown". So every value a
// recorder sends or dumps is one the decoders accept, and nothing out of range travels.
constexpr int32_t kUnknownDtype = -1;
constexpr int32_t kNoRedOp = -1;  // a call without an operator, or one whose operator was invalid
int32_t recordedDtype(int32_t dtype);
int32_t recordedOp(TraceKind kind, int32_t op);

// Why a call read from outside the process (a peer's reply, a dump file) is not one a recorder
// makes: a dtype or op out of range (as recordedDtype/recordedOp define it). Empty when it is
// fine. Roots and peers are not checked: they are the application's values, kept as it passed
// them, and the verdict says when one is not a rank.
std::string traceCallProblem(const TraceCall& call);

// One of the collectives we intercept, as the recorder takes it (algorithm, launch, grouped and
// captured are the runtime's to fill in).
TraceCall traceCallOf(const CollCall& call);

// What an operator that was created per communicator (PreMulSum) looks like: a handle whose value
// may differ between ranks, so it is compared as one class.
inline bool isUserRedOp(int32_t op) { return op >= static_cast<int32_t>(ncclNumOps); }

}  // namespace flashccl
