#include "trace/trace_call.h"

#include <cstring>

namespace flashccl {

namespace {

struct KindNames {
  const char* api;
  const char* profiling;
};

// Indexed by TraceKind. The profiling names are PyTorch's ("nccl:" + its collective's name), so a
// flashccl dump reads like a Flight Recorder one; group marks have no PyTorch counterpart.
const KindNames kKindNames[kNumTraceKinds] = {
    {"AllReduce", "nccl:all_reduce"},
    {"AllGather", "nccl:all_gather"},
    {"ReduceScatter", "nccl:reduce_scatter"},
    {"Broadcast", "nccl:broadcast"},
    {"Reduce", "nccl:reduce"},
    {"AllToAll", "nccl:all_to_all"},
    {"Gather", "nccl:gather"},
    {"Scatter", "nccl:scatter"},
    {"Send", "nccl:send"},
    {"Recv", "nccl:recv"},
    {"GroupStart", "nccl:group_start"},
    {"GroupEnd", "nccl:group_end"},
};

}  // namespace

const char* traceKindName(TraceKind kind) {
  const int index = static_cast<int>(kind);
  return index < kNumTraceKinds ? kKindNames[index].api : "Unknown";
}

const char* profilingName(TraceKind kind) {
  const int index = static_cast<int>(kind);
  return index < kNumTraceKinds ? kKindNames[index].profiling : "nccl:unknown";
}

bool parseTraceKind(const char* name, TraceKind* kind) {
  for (int i = 0; i < kNumTraceKinds; ++i) {
    if (std::strcmp(name, kKindNames[i].api) == 0 || std::strcmp(name, kKindNames[i].profiling) == 0) {
      *kind = static_cast<TraceKind>(i);
      return true;
    }
  }
  return false;
}

bool takesRedOp(TraceKind kind) {
  return kind == TraceKind::kAllReduce || kind == TraceKind::kReduceScatter ||
         kind == TraceKind::kReduce;
}

bool takesRoot(TraceKind kind) {
  return kind == TraceKind::kBroadcast || kind == TraceKind::kReduce ||
         kind == TraceKind::kGather || kind == TraceKind::kScatter;
}

TraceKind traceKindOf(CollKind kind) {
  switch (kind) {
    case CollKind::kAllReduce: return TraceKind::kAllReduce;
    case CollKind::kAllGather: return TraceKind::kAllGather;
    case CollKind::kReduceScatter: return TraceKind::kReduceScatter;
  }
  return TraceKind::kAllReduce;
}

int32_t recordedDtype(int32_t dtype) {
  return dtype >= 0 && dtype < static_cast<int32_t>(ncclNumTypes) ? dtype : kUnknownDtype;
}

int32_t recordedOp(TraceKind kind, int32_t op) {
  // Any value from ncclNumOps up is a handle from ncclRedOpCreatePreMulSum (isUserRedOp).
  return takesRedOp(kind) && op >= 0 ? op : kNoRedOp;
}

std::string traceCallProblem(const TraceCall& call) {
  if (recordedDtype(call.dtype) != call.dtype) {
    return "dtype " + std::to_string(call.dtype) + " is no NCCL data type";
  }
  if (recordedOp(call.kind, call.op) != call.op) {
    return "op " + std::to_string(call.op) + (takesRedOp(call.kind) ? " is no reduction operator"
                                                                    : " on a call without one");
  }
  return "";
}

TraceCall traceCallOf(const CollCall& call) {
  TraceCall traced;
  traced.kind = traceKindOf(call.kind);
  traced.dtype = recordedDtype(static_cast<int32_t>(call.dtype));
  traced.op = recordedOp(traced.kind, static_cast<int32_t>(call.op));
  traced.count = call.count;
  traced.stream = call.stream;
  return traced;
}

}  // namespace flashccl
