#include "trace/progress_snapshot.h"

#include "trace/trace_clock.h"
#include "trace/wire_format.h"

namespace flashccl {

namespace {

const char* const kForwardedAlgorithm = "nccl";
// Bounds a decoded snapshot may not exceed, whatever its sender says.
constexpr uint32_t kMaxDecodedCalls = 4096;

bool fail(std::string* error, const std::string& why) {
  *error = why;
  return false;
}

// A call recorded while the snapshot is taken may carry a stamp a little after `nowNs`: age 0,
// so that every age sent is one decodeSnapshot accepts (-1 or more).
int64_t ageAt(int64_t nowNs, int64_t stampNs) { return stampNs < nowNs ? nowNs - stampNs : 0; }
int64_t agoOrUnseen(int64_t nowNs, int64_t stampNs) { return stampNs == 0 ? -1 : ageAt(nowNs, stampNs); }

}  // namespace

const SnapshotCall* ProgressSnapshot::collective(uint64_t seq) const {
  for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
    if (it->seq == seq && isCollective(it->call.kind)) return &*it;
  }
  return nullptr;
}

ProgressSnapshot takeSnapshot(const FlightRecorder& recorder, const CommIdentity& identity,
                              size_t maxCalls) {
  ProgressSnapshot snapshot;
  snapshot.identity = identity;
  const int64_t nowNs = traceNowNs();
  snapshot.takenWallNs = wallNs();
  snapshot.lastCollectiveSeq = recorder.lastCollectiveSeq();
  snapshot.lastP2pSeq = recorder.lastP2pSeq();
  snapshot.recorded = recorder.recorded();
  const FlightRecorder::DeviceProgress progress = recorder.deviceProgress();
  snapshot.deviceProgressKnown = progress.known;
  snapshot.launchesStarted = progress.started;
  snapshot.launchesCompleted = progress.completed;
  snapshot.followsForwarded = recorder.followsForwardedCalls();
  for (const RecordedCall& recorded : recorder.tail(maxCalls)) {
    SnapshotCall call;
    call.recordId = recorded.recordId;
    call.seq = recorded.seq;
    call.call = recorded.call;
    call.algorithm = recorded.call.algorithm ? recorded.call.algorithm : kForwardedAlgorithm;
    call.call.algorithm = nullptr;
    call.stream = reinterpret_cast<uint64_t>(recorded.call.stream);
    call.state = recorded.state;
    call.enqueuedAgoNs = ageAt(nowNs, recorded.enqueueNs);
    call.startedAgoNs = agoOrUnseen(nowNs, recorded.startedNs);
    call.completedAgoNs = agoOrUnseen(nowNs, recorded.completedNs);
    snapshot.calls.push_back(call);
  }
  return snapshot;
}

std::string encodeSnapshot(const ProgressSnapshot& snapshot) {
  ByteWriter out;
  const CommIdentity& id = snapshot.identity;
  out.u64(id.commHash);
  out.i32(id.rank);
  out.i32(id.nranks);
  out.i32(id.cudaDev);
  out.i32(id.pid);
  out.text(id.host, kMaxHostNameBytes);
  out.i64(snapshot.takenWallNs);
  out.u64(snapshot.lastCollectiveSeq);
  out.u64(snapshot.lastP2pSeq);
  out.u64(snapshot.recorded);
  out.u8(snapshot.deviceProgressKnown ? 1 : 0);
  out.u64(snapshot.launchesStarted);
  out.u64(snapshot.launchesCompleted);
  out.u8(snapshot.followsForwarded ? 1 : 0);
  out.u32(static_cast<uint32_t>(snapshot.calls.size()));
  for (const SnapshotCall& call : snapshot.calls) {
    out.u64(call.recordId);
    out.u64(call.seq);
    out.u8(static_cast<uint8_t>(call.call.kind));
    out.u8((call.call.grouped ? 1 : 0) | (call.call.captured ? 2 : 0));
    out.i32(call.call.dtype);
    out.i32(call.call.op);
    out.i32(call.call.peer);
    out.u64(call.call.count);
    out.u64(call.call.launch);
    out.text(call.algorithm, kMaxAlgorithmNameBytes);
    out.u64(call.stream);
    out.u8(static_cast<uint8_t>(call.state));
    out.i64(call.enqueuedAgoNs);
    out.i64(call.startedAgoNs);
    out.i64(call.completedAgoNs);
  }
  return out.data();
}

bool decodeSnapshot(const uint8_t* data, size_t size, ProgressSnapshot* snapshot,
                    std::string* error) {
  ByteReader in(data, size);
  ProgressSnapshot decoded;
  CommIdentity& id = decoded.identity;
  id.commHash = in.u64();
  id.rank = in.i32();
  id.nranks = in.i32();
  id.cudaDev = in.i32();
  id.pid = in.i32();
  id.host = in.text(kMaxHostNameBytes);
  decoded.takenWallNs = in.i64();
  decoded.lastCollectiveSeq = in.u64();
  decoded.lastP2pSeq = in.u64();
  decoded.recorded = in.u64();
  decoded.deviceProgressKnown = in.u8() != 0;
  decoded.launchesStarted = in.u64();
  decoded.launchesCompleted = in.u64();
  decoded.followsForwarded = in.u8() != 0;
  const uint32_t count = in.u32();
  if (!in.ok()) return fail(error, "cut short in its header");
  if (id.nranks <= 0 || id.nranks > kMaxTraceRanks) {
    return fail(error, "nranks " + std::to_string(id.nranks) + " is not in 1.." +
                           std::to_string(kMaxTraceRanks));
  }
  if (id.rank < 0 || id.rank >= id.nranks) {
    return fail(error, "rank " + std::to_string(id.rank) + " is not below nranks " +
                           std::to_string(id.nranks));
  }
  if (decoded.takenWallNs < 0) return fail(error, "snapshot time " + std::to_string(decoded.takenWallNs));
  if (count > kMaxDecodedCalls) {
    return fail(error, std::to_string(count) + " calls, more than " + std::to_string(kMaxDecodedCalls));
  }
  decoded.calls.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    SnapshotCall call;
    call.recordId = in.u64();
    call.seq = in.u64();
    const uint8_t kind = in.u8();
    const uint8_t flags = in.u8();
    call.call.dtype = in.i32();
    call.call.op = in.i32();
    call.call.peer = in.i32();
    call.call.count = in.u64();
    call.call.launch = in.u64();
    call.algorithm = in.text(kMaxAlgorithmNameBytes);
    call.stream = in.u64();
    const uint8_t state = in.u8();
    call.enqueuedAgoNs = in.i64();
    call.startedAgoNs = in.i64();
    call.completedAgoNs = in.i64();
    const std::string where = "call " + std::to_string(i) + ": ";
    if (!in.ok()) return fail(error, where + "cut short");
    if (kind >= kNumTraceKinds) return fail(error, where + "kind " + std::to_string(kind) + " is unknown");
    if (state > static_cast<uint8_t>(CallState::kFailed)) {
      return fail(error, where + "state " + std::to_string(state) + " is unknown");
    }
    call.call.kind = static_cast<TraceKind>(kind);
    if (const std::string problem = traceCallProblem(call.call); !problem.empty()) {
      return fail(error, where + problem);
    }
    // Ages: how long before the snapshot; -1 (not seen) is the only negative one.
    if (call.enqueuedAgoNs < 0 || call.startedAgoNs < -1 || call.completedAgoNs < -1) {
      return fail(error, where + "a negative age");
    }
    call.call.grouped = flags & 1;
    call.call.captured = flags & 2;
    call.state = static_cast<CallState>(state);
    decoded.calls.push_back(std::move(call));
  }
  if (!in.atEnd()) return fail(error, std::to_string(size) + " bytes, more than its calls hold");
  *snapshot = std::move(decoded);
  return true;
}

}  // namespace flashccl
