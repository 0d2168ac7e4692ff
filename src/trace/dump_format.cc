#include "trace/dump_format.h"

#include <cstdint>
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
  return isUserRedOp(call.op) ? "premulsum" : redOpName(call.op);
}

// Reads one JSON object of a dump. Every field is checked for its type and range before it is
// used (a hand-edited or corrupt file must give an error, never a conversion that overflows or an
// exception); the first bad field becomes the error, named with where it is ("comms[0].rank").
class Fields {
 public:
  Fields(const Json& object, std::string where, std::string* error)
      : object_(object), where_(std::move(where)), error_(error) {
    if (!object_.is_object()) fail("", "not an object");
  }
  bool ok() const { return ok_; }
  bool fail(const char* name, const std::string& why) {
    if (ok_) *error_ = where_ + (*name ? std::string(where_.empty() ? "" : ".") + name : "") + ": " + why;
    ok_ = false;
    return false;
  }
  const Json* find(const char* name) const {
    if (!ok_) return nullptr;
    const auto it = object_.find(name);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }
  bool has(const char* name) const { return find(name) != nullptr; }

  int64_t integer(const char* name, int64_t min, int64_t max, int64_t absent) {
    const Json* j = find(name);
    if (j == nullptr) return absent;
    if (j->is_number_unsigned() && j->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      fail(name, "too large");
      return absent;
    }
    if (!j->is_number_integer()) {
      fail(name, "not an integer");
      return absent;
    }
    const int64_t value = j->get<int64_t>();
    if (value < min || value > max) {
      fail(name, std::to_string(value) + " is not in " + std::to_string(min) + ".." + std::to_string(max));
      return absent;
    }
    return value;
  }
  int32_t int32(const char* name, int32_t min, int32_t absent) {
    return static_cast<int32_t>(integer(name, min, INT32_MAX, absent));
  }
  uint64_t count(const char* name) {
    const Json* j = find(name);
    if (j == nullptr) return 0;
    if (!j->is_number_unsigned()) {
      fail(name, "not an integer of 0 or more");
      return 0;
    }
    return j->get<uint64_t>();
  }
  double number(const char* name, double min, double max) {
    const Json* j = find(name);
    if (j == nullptr) return 0;
    if (!j->is_number() || !(j->get<double>() >= min && j->get<double>() <= max)) {
      fail(name, "not a number in " + std::to_string(min) + ".." + std::to_string(max));
      return 0;
    }
    return j->get<double>();
  }
  bool flag(const char* name) {
    const Json* j = find(name);
    if (j == nullptr) return false;
    if (!j->is_boolean()) fail(name, "not true or false");
    return ok_ && j->get<bool>();
  }
  std::string text(const char* name, const std::string& absent = std::string()) {
    const Json* j = find(name);
    if (j == nullptr) return absent;
    if (!j->is_string()) {
      fail(name, "not a string");
      return absent;
    }
    return j->get<std::string>();
  }
  // An array field; an empty one when absent.
  const Json& array(const char* name) {
    static const Json kEmpty = Json::array();
    const Json* j = find(name);
    if (j == nullptr) return kEmpty;
    if (!j->is_array()) fail(name, "not an array");
    return ok_ ? *j : kEmpty;
  }
  const Json& object(const char* name) {
    static const Json kEmpty = Json::object();
    const Json* j = find(name);
    if (j == nullptr) return kEmpty;
    if (!j->is_object()) fail(name, "not an object");
    return ok_ ? *j : kEmpty;
  }
  const std::string& where() const { return where_; }

 private:
  const Json& object_;
  std::string where_;
  std::string* error_;
  bool ok_ = true;
};

// The operator of a reducing call: a built-in name, "premulsum" (any per-communicator one) or
// "unknown" (one the application passed that NCCL does not have).
bool opFromName(const std::string& name, int32_t* op) {
  for (int candidate = 0; candidate < static_cast<int>(ncclNumOps); ++candidate) {
    if (name != redOpName(candidate)) continue;
    *op = candidate;
    return true;
  }
  if (name == "premulsum") *op = static_cast<int32_t>(ncclNumOps);
  if (name == "unknown") *op = kNoRedOp;
  return name == "premulsum" || name == "unknown";
}

bool dtypeFromName(const std::string& name, int32_t* dtype) {
  for (int t = kUnknownDtype; t < static_cast<int>(ncclNumTypes); ++t) {
    if (name == dtypeName(t)) {
      *dtype = t;
      return true;
    }
  }
  return false;
}

// A wall-clock time `agoNs` before `wall`, or null when never seen.
Json timeBefore(int64_t wall, int64_t agoNs) { return agoNs < 0 ? Json(nullptr) : Json(wall - agoNs); }

// How long before the snapshot (taken at `wall`) a stamped time was, -1 when absent. A stamp a
// little after the snapshot (taken while it was made) is age 0. Both are 0 or more, so
// `wall - time` cannot overflow.
int64_t ageOf(Fields& fields, const char* name, int64_t wall) {
  const int64_t time = fields.integer(name, 0, INT64_MAX, -1);
  if (time < 0) return -1;
  return time < wall ? wall - time : 0;
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

bool parseEntry(const Json& j, const std::string& where, int64_t takenWallNs, SnapshotCall* call,
                std::string* error) {
  Fields f(j, where, error);
  TraceKind kind;
  const std::string kindName = f.text("kind");
  if (!f.ok()) return false;
  if (!parseTraceKind(kindName.c_str(), &kind)) {
    return f.fail("kind", kindName.empty() ? "missing" : "\"" + kindName + "\" is no call NCCL has");
  }
  TraceCall& c = call->call;
  c.kind = kind;
  call->recordId = f.count("record_id");
  call->seq = f.count(isP2p(kind) ? "p2p_seq_id" : "collective_seq_id");
  c.count = f.count("count");
  const std::string dtype = f.text("dtype");
  if (f.ok() && !dtypeFromName(dtype, &c.dtype)) {
    return f.fail("dtype", dtype.empty() ? "missing" : "\"" + dtype + "\" is no NCCL data type");
  }
  const std::string op = f.text("op");
  if (f.ok() && takesRedOp(kind) && !opFromName(op, &c.op)) {
    return f.fail("op", op.empty() ? "missing" : "\"" + op + "\" is no reduction operator");
  }
  if (f.ok() && !takesRedOp(kind) && !op.empty()) return f.fail("op", "set on a call without one");
  // The application's root or peer as it passed it (the verdict says when it is no rank).
  c.peer = static_cast<int32_t>(f.integer(takesRoot(kind) ? "root" : "peer", INT32_MIN, INT32_MAX, -1));
  c.launch = f.count("launch");
  c.grouped = f.flag("grouped");
  c.captured = f.flag("captured");
  call->algorithm = f.text("algorithm", "nccl");
  if (call->algorithm.size() > kMaxAlgorithmNameBytes) return f.fail("algorithm", "longer than a name can be");
  const std::string stream = f.text("stream", "0");
  if (f.ok() && !parseHex64(stream.rfind("0x", 0) == 0 ? stream.substr(2) : stream, &call->stream)) {
    return f.fail("stream", "\"" + stream + "\" is not a hexadecimal handle");
  }
  const std::string state = f.text("state");
  call->state = CallState::kUntracked;
  bool knownState = state.empty();
  for (CallState candidate : {CallState::kUntracked, CallState::kCaptured, CallState::kEnqueued,
                              CallState::kStarted, CallState::kCompleted, CallState::kFailed}) {
    if (state != callStateName(candidate)) continue;
    call->state = candidate;
    knownState = true;
  }
  if (f.ok() && !knownState) return f.fail("state", "\"" + state + "\" is no call state");
  call->enqueuedAgoNs = ageOf(f, "time_created_ns", takenWallNs);
  if (call->enqueuedAgoNs < 0) call->enqueuedAgoNs = 0;
  call->startedAgoNs = ageOf(f, "time_discovered_started_ns", takenWallNs);
  call->completedAgoNs = ageOf(f, "time_discovered_completed_ns", takenWallNs);
  if (f.ok() && !traceCallProblem(c).empty()) return f.fail("", traceCallProblem(c));
  return f.ok();
}

bool parseComm(const Json& j, const std::string& where, DumpedComm* comm, std::string* error) {
  Fields f(j, where, error);
  ProgressSnapshot& s = comm->snapshot;
  const std::string hash = f.text("comm_hash");
  if (f.ok() && !parseHex64(hash, &s.identity.commHash)) {
    return f.fail("comm_hash", hash.empty() ? "missing" : "\"" + hash + "\" is not hexadecimal");
  }
  // nranks sizes the per-rank tables of `flashccl trace`: bounded, and the rank below it.
  s.identity.nranks = static_cast<int>(f.integer("nranks", 1, kMaxTraceRanks, 0));
  if (f.ok() && !f.has("nranks")) return f.fail("nranks", "missing");
  s.identity.rank = static_cast<int>(f.integer("rank", 0, s.identity.nranks - 1, -1));
  if (f.ok() && !f.has("rank")) return f.fail("rank", "missing");
  s.identity.cudaDev = f.int32("cuda_dev", -1, -1);
  s.identity.host = f.text("host");
  s.identity.pid = f.int32("pid", 0, 0);
  s.takenWallNs = f.integer("snapshot_time_ns", 0, INT64_MAX, 0);
  Fields status(f.object("pg_status"), where + ".pg_status", error);
  s.lastCollectiveSeq = status.count("last_enqueued_collective");
  s.lastP2pSeq = status.count("last_enqueued_p2p");
  s.recorded = f.count("calls_recorded");
  Fields device(f.object("device_progress"), where + ".device_progress", error);
  s.deviceProgressKnown = device.flag("known");
  s.launchesStarted = device.count("launches_started");
  s.launchesCompleted = device.count("launches_completed");
  s.followsForwarded = f.flag("follows_forwarded_calls");
  if (!f.ok() || !status.ok() || !device.ok()) return false;
  const Json& peers = f.array("peers");
  if (peers.size() > static_cast<size_t>(s.identity.nranks)) {
    return f.fail("peers", std::to_string(peers.size()) + " of them, more than nranks " +
                               std::to_string(s.identity.nranks));
  }
  for (size_t i = 0; i < peers.size() && f.ok(); ++i) {
    Fields peer(peers[i], where + ".peers[" + std::to_string(i) + "]", error);
    TraceEndpoint endpoint;
    endpoint.magic = kTraceEndpointMagic;  // identity only: no address, no token
    endpoint.pid = peer.int32("pid", 0, 0);
    endpoint.cudaDev = peer.int32("cuda_dev", -1, -1);
    std::strncpy(endpoint.host, peer.text("host").c_str(), sizeof(endpoint.host) - 1);
    if (!peer.ok()) return false;
    comm->peers.push_back(endpoint);
  }
  const Json& entries = f.array("entries");
  for (size_t i = 0; i < entries.size() && f.ok(); ++i) {
    SnapshotCall call;
    if (!parseEntry(entries[i], where + ".entries[" + std::to_string(i) + "]", s.takenWallNs, &call,
                    error)) {
      return false;
    }
    s.calls.push_back(call);
  }
  return f.ok();
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
  const auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer() ||
      version->get<int64_t>() != kDumpFormatVersion || !root.contains("comms")) {
    *error = "not a flashccl trace dump of version " + std::to_string(kDumpFormatVersion);
    return false;
  }
  Fields f(root, "", error);
  TraceDump parsed;
  parsed.reason = f.text("reason");
  parsed.host = f.text("host");
  parsed.pid = f.int32("pid", 0, 0);
  parsed.dumpWallNs = f.integer("dump_time_ns", 0, INT64_MAX, 0);
  // A timeout of more than a year is no setting FLASHCCL_HANG_TIMEOUT takes: a corrupt field.
  parsed.hangTimeoutSeconds = f.number("hang_timeout_s", 0, 366.0 * 86400);
  for (const Json& line : f.array("verdict")) {
    if (line.is_string()) parsed.verdict.push_back(line.get<std::string>());
  }
  const Json& comms = f.array("comms");
  for (size_t i = 0; i < comms.size() && f.ok(); ++i) {
    DumpedComm parsedComm;
    if (!parseComm(comms[i], "comms[" + std::to_string(i) + "]", &parsedComm, error)) return false;
    parsed.comms.push_back(std::move(parsedComm));
  }
  if (!f.ok()) return false;
  *dump = std::move(parsed);
  return true;
}

}  // namespace flashccl
