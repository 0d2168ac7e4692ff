#include "trace/dump_format.h"

#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "base/coll_call.h"

namespace flashccl {

namespace {

using Json = nlohmann::json;

std::string hex64(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

bool parseHex64(const std::string& text, uint64_t* value) {
  if (text.empty() || text.size() > 18) return false;
  char* end = nullptr;
  *value = std::strtoull(text.c_str(), &end, 16);
  return *end == '\0';
}

std::string opName(const TraceCall& call) {
  if (!takesRedOp(call.kind)) return "";
  return isUserRedOp(call.op) ? "premulsum" : redOpName(static_cast<ncclRedOp_t>(call.op));
}

int32_t opFromName(const std::string& name) {
  if (name.empty()) return -1;
  for (int op = 0; op < static_cast<int>(ncclNumOps); ++op) {
    if (name == redOpName(static_cast<ncclRedOp_t>(op))) return op;
  }
  return static_cast<int32_t>(ncclNumOps);  // premulsum: a per-communicator operator
}

int32_t dtypeFromName(const std::string& name) {
  for (int t = 0; t < static_cast<int>(ncclNumTypes); ++t) {
    if (name == dtypeName(static_cast<ncclDataType_t>(t))) return t;
  }
  return -1;
}

// A wall-clock time `agoNs` before `wall`, or null when never seen.
Json timeBefore(int64_t wall, int64_t agoNs) { return agoNs < 0 ? Json(nullptr) : Json(wall - agoNs); }
int64_t agoFrom(int64_t wall, const Json& value) {
  return value.is_number_integer() ? wall - value.get<int64_t>() : -1;
}

Json entryJson(const SnapshotCall& call, int64_t takenWallNs) {
  const TraceCall& c = call.call;
  char stream[24];
  std::snprintf(stream, sizeof(stream), "0x%llx", static_cast<unsigned long long>(call.stream));
  return Json{
      {"record_id", call.recordId},
      {"collective_seq_id", isCollective(c.kind) ? call.seq : 0},
      {"p2p_seq_id", isP2p(c.kind) ? call.seq : 0},
      {"profiling_name", profilingName(c.kind)},
      {"kind", traceKindName(c.kind)},
      {"count", c.count},
      {"dtype", dtypeName(static_cast<ncclDataType_t>(c.dtype))},
      {"op", opName(c)},
      {"root", takesRoot(c.kind) ? c.peer : -1},
      {"peer", isP2p(c.kind) ? c.peer : -1},
      {"stream", stream},
      {"algorithm", call.algorithm},
      {"launch", c.launch},
      {"is_p2p", isP2p(c.kind)},
      {"grouped", c.grouped},
      {"captured", c.captured},
      {"state", callStateName(call.state)},
      {"time_created_ns", takenWallNs - call.enqueuedAgoNs},
      {"time_discovered_started_ns", timeBefore(takenWallNs, call.startedAgoNs)},
      {"time_discovered_completed_ns", timeBefore(takenWallNs, call.completedAgoNs)},
  };
}

uint64_t lastSeqIn(const ProgressSnapshot& snapshot, CallState atLeast) {
  uint64_t seq = 0;
  for (const SnapshotCall& call : snapshot.calls) {
    if (!isCollective(call.call.kind)) continue;
    const bool reached = call.state == CallState::kCompleted ||
                         (atLeast == CallState::kStarted && call.state == CallState::kStarted);
    if (reached && call.seq > seq) seq = call.seq;
  }
  return seq;
}

Json commJson(const DumpedComm& comm) {
  const ProgressSnapshot& s = comm.snapshot;
  Json peers = Json::array();
  for (size_t rank = 0; rank < comm.peers.size(); ++rank) {
    const TraceEndpoint& peer = comm.peers[rank];
    peers.push_back({{"rank", rank},
                     {"host", std::string(peer.host, strnlen(peer.host, sizeof(peer.host)))},
                     {"pid", peer.pid},
                     {"cuda_dev", peer.cudaDev},
                     {"address", endpointAddressText(peer)}});
  }
  Json entries = Json::array();
  for (const SnapshotCall& call : s.calls) entries.push_back(entryJson(call, s.takenWallNs));
  return Json{
      {"comm_hash", hex64(s.identity.commHash)},
      {"rank", s.identity.rank},
      {"nranks", s.identity.nranks},
      {"cuda_dev", s.identity.cudaDev},
      {"host", s.identity.host},
      {"pid", s.identity.pid},
      {"snapshot_time_ns", s.takenWallNs},
      {"pg_status",
       {{"last_enqueued_collective", s.lastCollectiveSeq},
        {"last_started_collective", lastSeqIn(s, CallState::kStarted)},
        {"last_completed_collective", lastSeqIn(s, CallState::kCompleted)},
        {"last_enqueued_p2p", s.lastP2pSeq}}},
      {"calls_recorded", s.recorded},
      {"device_progress",
       {{"known", s.deviceProgressKnown},
        {"launches_started", s.launchesStarted},
        {"launches_completed", s.launchesCompleted}}},
      {"follows_forwarded_calls", s.followsForwarded},
      {"peers", peers},
      {"entries", entries},
  };
}

bool parseEntry(const Json& j, int64_t takenWallNs, SnapshotCall* call, std::string* error) {
  TraceKind kind;
  if (!j.is_object() || !parseTraceKind(j.value("kind", std::string()).c_str(), &kind)) {
    *error = "an entry without a known kind";
    return false;
  }
  TraceCall& c = call->call;
  c.kind = kind;
  call->recordId = j.value("record_id", uint64_t{0});
  call->seq = isP2p(kind) ? j.value("p2p_seq_id", uint64_t{0}) : j.value("collective_seq_id", uint64_t{0});
  c.count = j.value("count", uint64_t{0});
  c.dtype = dtypeFromName(j.value("dtype", std::string()));
  c.op = opFromName(j.value("op", std::string()));
  c.peer = takesRoot(kind) ? j.value("root", -1) : j.value("peer", -1);
  c.launch = j.value("launch", uint64_t{0});
  c.grouped = j.value("grouped", false);
  c.captured = j.value("captured", false);
  call->algorithm = j.value("algorithm", std::string("nccl"));
  call->stream = std::strtoull(j.value("stream", std::string("0")).c_str(), nullptr, 16);
  const std::string state = j.value("state", std::string());
  call->state = CallState::kUntracked;
  for (CallState candidate : {CallState::kUntracked, CallState::kCaptured, CallState::kEnqueued,
                              CallState::kStarted, CallState::kCompleted, CallState::kFailed}) {
    if (state == callStateName(candidate)) call->state = candidate;
  }
  call->enqueuedAgoNs = agoFrom(takenWallNs, j.value("time_created_ns", Json(nullptr)));
  if (call->enqueuedAgoNs < 0) call->enqueuedAgoNs = 0;
  call->startedAgoNs = agoFrom(takenWallNs, j.value("time_discovered_started_ns", Json(nullptr)));
  call->completedAgoNs = agoFrom(takenWallNs, j.value("time_discovered_completed_ns", Json(nullptr)));
  return true;
}

bool parseComm(const Json& j, DumpedComm* comm, std::string* error) {
  ProgressSnapshot& s = comm->snapshot;
  if (!j.is_object() || !parseHex64(j.value("comm_hash", std::string()), &s.identity.commHash)) {
    *error = "a communicator without comm_hash";
    return false;
  }
  s.identity.rank = j.value("rank", -1);
  s.identity.nranks = j.value("nranks", 0);
  if (s.identity.nranks <= 0 || s.identity.rank < 0 || s.identity.rank >= s.identity.nranks) {
    *error = "a communicator with rank " + std::to_string(s.identity.rank) + " of " +
             std::to_string(s.identity.nranks);
    return false;
  }
  s.identity.cudaDev = j.value("cuda_dev", -1);
  s.identity.host = j.value("host", std::string());
  s.identity.pid = j.value("pid", 0);
  s.takenWallNs = j.value("snapshot_time_ns", int64_t{0});
  const Json status = j.value("pg_status", Json::object());
  s.lastCollectiveSeq = status.value("last_enqueued_collective", uint64_t{0});
  s.lastP2pSeq = status.value("last_enqueued_p2p", uint64_t{0});
  s.recorded = j.value("calls_recorded", uint64_t{0});
  const Json device = j.value("device_progress", Json::object());
  s.deviceProgressKnown = device.value("known", false);
  s.launchesStarted = device.value("launches_started", uint64_t{0});
  s.launchesCompleted = device.value("launches_completed", uint64_t{0});
  s.followsForwarded = j.value("follows_forwarded_calls", false);
  for (const Json& peer : j.value("peers", Json::array())) {
    TraceEndpoint endpoint;
    endpoint.magic = kTraceEndpointMagic;  // identity only: no address, no token
    endpoint.pid = peer.value("pid", 0);
    endpoint.cudaDev = peer.value("cuda_dev", -1);
    std::strncpy(endpoint.host, peer.value("host", std::string()).c_str(), sizeof(endpoint.host) - 1);
    comm->peers.push_back(endpoint);
  }
  for (const Json& entry : j.value("entries", Json::array())) {
    SnapshotCall call;
    if (!parseEntry(entry, s.takenWallNs, &call, error)) return false;
    s.calls.push_back(call);
  }
  return true;
}

}  // namespace

std::string dumpToJson(const TraceDump& dump) {
  Json comms = Json::array();
  for (const DumpedComm& comm : dump.comms) comms.push_back(commJson(comm));
  Json root{
      {"version", kDumpFormatVersion},
      {"generator", "flashccl " FLASHCCL_VERSION_STRING},
      {"reason", dump.reason},
      {"host", dump.host},
      {"pid", dump.pid},
      {"dump_time_ns", dump.dumpWallNs},
      {"hang_timeout_s", dump.hangTimeoutSeconds},
      {"verdict", dump.verdict},
      {"comms", comms},
  };
  // Names from the environment (hosts, XML algorithm names) could hold invalid UTF-8: replaced,
  // never a reason to fail a dump.
  return root.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

bool dumpFromJson(const std::string& text, TraceDump* dump, std::string* error) {
  const Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    *error = "not JSON";
    return false;
  }
  if (root.value("version", 0) != kDumpFormatVersion || !root.contains("comms")) {
    *error = "not a flashccl trace dump of version " + std::to_string(kDumpFormatVersion);
    return false;
  }
  TraceDump parsed;
  try {
    parsed.reason = root.value("reason", std::string());
    parsed.host = root.value("host", std::string());
    parsed.pid = root.value("pid", 0);
    parsed.dumpWallNs = root.value("dump_time_ns", int64_t{0});
    parsed.hangTimeoutSeconds = root.value("hang_timeout_s", 0.0);
    for (const Json& line : root.value("verdict", Json::array())) {
      if (line.is_string()) parsed.verdict.push_back(line.get<std::string>());
    }
    for (const Json& comm : root.at("comms")) {
      DumpedComm parsedComm;
      if (!parseComm(comm, &parsedComm, error)) return false;
      parsed.comms.push_back(std::move(parsedComm));
    }
  } catch (const Json::exception& e) {
    // A field of the wrong type (a hand-edited file): say which, do not crash the tool.
    *error = e.what();
    return false;
  }
  *dump = std::move(parsed);
  return true;
}

}  // namespace flashccl
