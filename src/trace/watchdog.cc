#include "trace/watchdog.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "base/log.h"
#include "trace/cuda_event_probe.h"
#include "trace/dump_file.h"
#include "trace/dump_format.h"
#include "trace/dump_signal.h"
#include "trace/side_channel_client.h"
#include "trace/suspicion.h"
#include "trace/trace_clock.h"
#include "trace/verdict.h"

namespace flashccl {

struct Watchdog::Watched {
  uint64_t id = 0;
  TracedComm* comm = nullptr;
  CommIdentity identity;
  std::vector<TraceEndpoint> endpoints;
  // The watchdog thread's bookkeeping.
  int64_t lastInvestigationNs = 0;
  uint64_t idleInvestigatedRecord = UINT64_MAX;
  std::set<std::string> printed;
  bool aborted = false;
  int64_t abortAtNs = 0;  // the hang action, once the other ranks had time to look
  ncclResult_t abortReason = ncclSuccess;
  std::map<int, int64_t> unreachableSinceWallNs;
  // Set by the side channel's thread: a peer told us it waits (it looks for the culprit).
  bool hinted = false;
  // The dead-peer check (TraceSettings::peerCheckAfterNs): when it last ran, and where the next
  // one's window of peers starts (a large communicator's peers are checked a window at a time).
  int64_t lastPeerCheckNs = 0;
  int peerCheckCursor = 0;
};

struct Watchdog::Investigation {
  uint64_t id = 0;
  CommIdentity identity;
  std::vector<TraceEndpoint> endpoints;
  ProgressSnapshot own;
  Suspicion suspicion;
  std::map<int, int64_t> unreachableSinceWallNs;
  // Only the dead-peer check: are the processes of `ask` still there? Silent unless one is gone.
  bool peerCheckOnly = false;
  std::vector<int> ask;  // the ranks to query (every other rank for a full investigation)
};

namespace {

std::atomic<Watchdog*> gProcessWatchdog{nullptr};

// Peers one dead-peer check asks at most: every peer of a communicator of up to 33 ranks, a
// rotating window of a larger one (so that a waiting rank of thousands does not open thousands
// of connections a second).
constexpr int kPeerCheckWindow = 32;
// How long a dead-peer check waits for answers: a gone process refuses at once; a peer that is
// merely slow to answer is no evidence either way.
constexpr int kPeerCheckTimeoutMs = 500;
std::atomic<bool> gProcessHooksInstalled{false};

// Keeps the library mapped for as long as the process lives: our threads run its code.
void pinLibraryInMemory() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&pinLibraryInMemory), &info) && info.dli_fname) {
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

std::string hashText(uint64_t hash) {
  char text[24];
  std::snprintf(text, sizeof(text), "%016" PRIx64, hash);
  return text;
}

}  // namespace

// "9f3a2b1c0d4e5f60 (0x55d0c2a4e2b0)": the hash every rank shows, and this rank's ncclComm_t.
std::string Watchdog::commText(const Watched& watched) {
  std::string text = hashText(watched.identity.commHash);
  if (const void* handle = watched.comm->ncclHandle()) {
    char pointer[32];
    std::snprintf(pointer, sizeof(pointer), " (%p)", handle);
    text += pointer;
  }
  return text;
}

Watchdog::Watchdog(const TraceSettings& settings, bool ownsDumpSignal)
    : settings_(settings), ownsDumpSignal_(ownsDumpSignal) {
  int fds[2];
  if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0) {
    wakeRead_ = fds[0];
    wakeWrite_ = fds[1];
  }
}

Watchdog::~Watchdog() {
  stopping_.store(true, std::memory_order_release);
  wake();
  if (thread_.joinable()) thread_.join();
  server_.reset();
  if (ownsDumpSignal_) detachDumpSignal();
  for (int fd : {wakeRead_, wakeWrite_}) {
    if (fd >= 0) close(fd);
  }
}

void Watchdog::wake() {
  if (wakeWrite_ < 0) return;
  const char byte = 'w';
  if (write(wakeWrite_, &byte, 1) < 0) {
    // Full: the thread is awake already.
  }
}

TraceEndpoint Watchdog::endpointForNewComm(int cudaDev) {
  TraceEndpoint endpoint = endpointWithoutChannel(cudaDev);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!serverTried_) {
    serverTried_ = true;
    NetInterface where;
    std::string why;
    if (chooseInterface(listNetInterfaces(), getEnv("NCCL_SOCKET_IFNAME"),
                        socketFamilyFromEnv(getEnv("NCCL_SOCKET_FAMILY")), &where, &why)) {
      server_ = SideChannelServer::start(where, this, SideChannelLimits(), &why);
    }
    if (server_) {
      TraceEndpoint described = endpoint;  // describe() sets the address only, not the magic
      server_->describe(&described);
      FCCL_INFO(kLogInit, "trace side channel listening on %s (%s)",
                endpointAddressText(described).c_str(), where.name.c_str());
    } else {
      FCCL_WARN("trace: no side channel (%s): hangs are still noticed here, but other ranks "
                "cannot ask this one for its progress", why.c_str());
    }
  }
  if (server_) {
    server_->describe(&endpoint);
    if (!makeTraceToken(endpoint.token)) {
      FCCL_WARN("trace: no random token (getrandom and /dev/urandom failed): this "
                "communicator's side channel stays closed");
      endpoint.port = 0;
    }
  }
  return endpoint;
}

void Watchdog::add(TracedComm* comm) {
  const std::vector<TraceEndpoint>& endpoints = comm->endpoints();
  const int rank = comm->rank();
  if (rank < 0 || rank >= static_cast<int>(endpoints.size())) {
    FCCL_WARN("trace: rank %d of %zu endpoints: communicator not watched", rank, endpoints.size());
    return;
  }
  auto watched = std::make_unique<Watched>();
  watched->comm = comm;
  watched->endpoints = endpoints;
  watched->identity.commHash = commHashOf(endpoints);
  watched->identity.rank = rank;
  watched->identity.nranks = static_cast<int>(endpoints.size());
  watched->identity.cudaDev = comm->cudaDev();
  watched->identity.pid = static_cast<int>(getpid());
  watched->identity.host = traceHostName();
  std::lock_guard<std::mutex> lock(mutex_);
  watched->id = nextId_++;
  watched_.push_back(std::move(watched));
  startThreadLocked();
}

void Watchdog::remove(TracedComm* comm) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = watched_.begin(); it != watched_.end();) {
    it = (*it)->comm == comm ? watched_.erase(it) : it + 1;
  }
}

void Watchdog::requestDump() {
  dumpRequested_.store(true, std::memory_order_release);
  wake();
}

std::string Watchdog::dump(TracedComm* comm, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (exiting_) return "";
  Watched* only = nullptr;
  if (comm != nullptr) {
    for (auto& watched : watched_) {
      if (watched->comm == comm) only = watched.get();
    }
    if (only == nullptr) return "";
  }
  return dumpLocked(only, reason, {});
}

std::string Watchdog::dumpAtAbort(TracedComm* comm) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (exiting_) return "";
  for (auto& watched : watched_) {
    if (watched->comm != comm) continue;
    FlightRecorder& recorder = comm->recorder();
    recorder.observe(traceNowNs());
    const ProgressSnapshot own = takeSnapshot(recorder, watched->identity, recorder.capacity());
    // suspect() with no timeout: any call not known to have completed (pending, or untracked newest).
    if (watched->printed.empty() && suspect(own, 0).kind == Suspicion::Kind::kNone) {
      FCCL_INFO(kLogInit, "trace: comm %s aborted with every call completed: no dump",
                commText(*watched).c_str());
      return "";
    }
    return dumpLocked(watched.get(), "abort", {});
  }
  return "";
}

std::string Watchdog::dumpLocked(Watched* only, const std::string& reason,
                                 const std::vector<std::string>& verdict) {
  TraceDump dump;
  dump.reason = reason;
  dump.host = traceHostName();
  dump.pid = static_cast<int>(getpid());
  dump.dumpWallNs = wallNs();
  dump.hangTimeoutSeconds = static_cast<double>(settings_.hangTimeoutNs) / 1e9;
  dump.verdict = verdict;
  for (auto& watched : watched_) {
    if (only != nullptr && watched.get() != only) continue;
    FlightRecorder& recorder = watched->comm->recorder();
    dump.comms.push_back({takeSnapshot(recorder, watched->identity, recorder.capacity()),
                          watched->endpoints});
  }
  if (dump.comms.empty()) return "";
  std::string error;
  const std::string path =
      writeDumpFile(settings_.dumpDir, dump.host, dump.pid, dumpToJson(dump), &error);
  if (path.empty()) {
    FCCL_WARN("trace: no flight-recorder dump (%s): %s", reason.c_str(), error.c_str());
  } else {
    FCCL_WARN("trace: flight recorder of %zu communicator(s) dumped to %s (%s)", dump.comms.size(),
              path.c_str(), reason.c_str());
  }
  return path;
}

Watchdog::Watched* Watchdog::findLocked(uint64_t id) {
  for (auto& watched : watched_) {
    if (watched->id == id) return watched.get();
  }
  return nullptr;
}

bool Watchdog::answer(const ProgressQuery& query, std::string* reply) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (exiting_) return false;
  for (auto& watched : watched_) {
    const TraceEndpoint& mine = watched->endpoints[watched->identity.rank];
    if (!sameToken(mine.token, query.token)) continue;
    *reply = encodeSnapshot(takeSnapshot(watched->comm->recorder(), watched->identity,
                                         kSnapshotCalls));
    if (query.waitingSeq != 0 && query.waitingNs >= settings_.hangTimeoutNs) {
      watched->hinted = true;
      wake();
    }
    return true;
  }
  return false;
}

void Watchdog::startThreadLocked() {
  if (thread_.joinable() || stopping_.load()) return;
  pinLibraryInMemory();
  if (ownsDumpSignal_ && settings_.dumpSignal != 0 &&
      !installDumpSignal(settings_.dumpSignal, wakeWrite_)) {
    FCCL_WARN("trace: cannot catch signal %d for dumps", settings_.dumpSignal);
  }
  thread_ = std::thread([this] { run(); });
}

void Watchdog::run() {
  const int waitMs = static_cast<int>(
      std::min(settings_.pollIntervalNs(), settings_.peerCheckIntervalNs()) / 1000000);
  while (!stopping_.load(std::memory_order_acquire)) {
    pollfd fd = {wakeRead_, POLLIN, 0};
    poll(&fd, 1, waitMs);
    char drain[64];
    while (wakeRead_ >= 0 && read(wakeRead_, drain, sizeof(drain)) > 0) {
    }
    if (stopping_.load(std::memory_order_acquire)) break;
    const bool signalled = ownsDumpSignal_ && takeDumpRequest();
    if (dumpRequested_.exchange(false) || signalled) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!exiting_) dumpLocked(nullptr, "signal", {});
    }
    pass();
  }
}

void Watchdog::pass() {
  std::vector<Investigation> due;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (exiting_) return;
    const int64_t now = traceNowNs();
    for (auto& watched : watched_) {
      if (watched->abortAtNs != 0 && !watched->aborted && now >= watched->abortAtNs) {
        failComm(*watched, watched->abortReason, "");
      }
      // A failed communicator has nothing more to find (it still answers its peers): its calls
      // fail, and one that recovers shrinks it, runs on the child and destroys it.
      if (watched->aborted) continue;
      FlightRecorder& recorder = watched->comm->recorder();
      recorder.observe(now);
      Investigation investigation;
      investigation.own = takeSnapshot(recorder, watched->identity, kSnapshotCalls);
      investigation.suspicion = suspect(investigation.own, settings_.hangTimeoutNs);
      const bool rested = watched->lastInvestigationNs == 0 ||
                          now - watched->lastInvestigationNs >= settings_.hangTimeoutNs;
      bool go = rested && (investigation.suspicion.kind == Suspicion::Kind::kWaiting ||
                           watched->hinted);
      // A call nobody follows, older than the timeout: look once per such call. If the other
      // ranks made it too, nothing is known to wait and no verdict comes of it.
      if (investigation.suspicion.kind == Suspicion::Kind::kIdle &&
          investigation.suspicion.recordId != watched->idleInvestigatedRecord) {
        watched->idleInvestigatedRecord = investigation.suspicion.recordId;
        go = true;
      }
      if (!go && watched->abortAtNs == 0 &&
          now - watched->lastPeerCheckNs >= settings_.peerCheckIntervalNs()) {
        const Suspicion early = suspect(investigation.own, settings_.peerCheckAfterNs());
        if (early.kind == Suspicion::Kind::kWaiting) {
          watched->lastPeerCheckNs = now;
          investigation.peerCheckOnly = true;
          investigation.suspicion = early;
          go = true;
        }
      }
      if (!go) continue;
      const int self = watched->identity.rank;
      const int nranks = watched->identity.nranks;
      if (investigation.peerCheckOnly) {
        const int window = std::min(kPeerCheckWindow, nranks - 1);
        for (int i = 0; i < window; ++i) {
          investigation.ask.push_back((self + 1 + (watched->peerCheckCursor + i) % (nranks - 1)) % nranks);
        }
        watched->peerCheckCursor = (watched->peerCheckCursor + window) % std::max(1, nranks - 1);
      } else {
        watched->hinted = false;
        watched->lastInvestigationNs = now;
        for (int rank = 0; rank < nranks; ++rank) {
          if (rank != self) investigation.ask.push_back(rank);
        }
      }
      investigation.id = watched->id;
      investigation.identity = watched->identity;
      investigation.endpoints = watched->endpoints;
      investigation.unreachableSinceWallNs = watched->unreachableSinceWallNs;
      due.push_back(std::move(investigation));
    }
  }
  for (Investigation& investigation : due) investigate(investigation);
}

void Watchdog::investigate(Investigation& inv) {
  const int self = inv.identity.rank;
  const int nranks = inv.identity.nranks;
  std::vector<PeerQuery> queries;
  const std::vector<int>& asked = inv.ask;
  for (int rank : asked) {
    PeerQuery query;
    query.endpoint = inv.endpoints[rank];
    std::memcpy(query.query.token, inv.endpoints[rank].token, kTraceTokenBytes);
    query.query.askerRank = self;
    // The dead-peer check asks without saying it waits: that would make the peer look too.
    if (inv.suspicion.kind == Suspicion::Kind::kWaiting && !inv.peerCheckOnly) {
      query.query.waitingSeq = inv.suspicion.seq != 0 ? inv.suspicion.seq : 1;
      query.query.waitingNs = inv.suspicion.waitedNs;
    }
    queries.push_back(query);
  }
  std::vector<QueryOutcome> outcomes =
      queryPeers(queries, inv.peerCheckOnly ? kPeerCheckTimeoutMs : settings_.queryTimeoutMs());
  if (inv.peerCheckOnly) {
    bool anyGone = false;
    for (const QueryOutcome& outcome : outcomes) anyGone |= outcome.kind == QueryOutcome::Kind::kRefused;
    if (!anyGone) return;  // everyone is there: only the hang timeout may tell more
  }

  CommReport report;
  report.commHash = inv.identity.commHash;
  report.nranks = nranks;
  // The dead-peer check: a call waiting peerCheckAfterNs counts as waiting, so that the gone
  // peer's finding says who waits for it.
  report.timeoutNs = inv.peerCheckOnly ? settings_.peerCheckAfterNs() : settings_.hangTimeoutNs;
  report.ranks.resize(nranks);
  for (int rank = 0; rank < nranks; ++rank) {
    // Ranks the check did not ask (or that did not answer it in time) are no evidence: they
    // count as there, with no calls.
    report.ranks[rank].rank = rank;
    report.ranks[rank].reachable = true;
  }
  report.ranks[self].rank = self;
  report.ranks[self].reachable = true;
  report.ranks[self].snapshot = std::move(inv.own);
  const int64_t nowWall = wallNs();
  for (size_t i = 0; i < asked.size(); ++i) {
    RankReport& rank = report.ranks[asked[i]];
    QueryOutcome& outcome = outcomes[i];
    rank.rank = asked[i];
    rank.endpoint = inv.endpoints[asked[i]];
    const bool answered = outcome.kind == QueryOutcome::Kind::kAnswered;
    const bool valid = answered && outcome.snapshot.identity.commHash == report.commHash &&
                       outcome.snapshot.identity.rank == asked[i];
    if (inv.peerCheckOnly && !valid && outcome.kind != QueryOutcome::Kind::kRefused) continue;
    rank.reachable = false;
    if (valid) {
      rank.reachable = true;
      rank.snapshot = std::move(outcome.snapshot);
      inv.unreachableSinceWallNs.erase(asked[i]);
      continue;
    }
    rank.why = answered ? "it answered for another communicator or rank" : outcome.detail;
    auto since = inv.unreachableSinceWallNs.emplace(asked[i], nowWall).first;
    rank.unreachableSinceWallNs = since->second;
  }
  std::vector<Finding> findings = analyzeHang(report);
  if (inv.peerCheckOnly) {
    // Only what the check proves: gone peers that a call of ours waits for.
    std::vector<Finding> gone;
    for (Finding& finding : findings) {
      if (finding.kind == Finding::Kind::kUnreachable && finding.blocking) gone.push_back(std::move(finding));
    }
    findings.swap(gone);
  }

  std::lock_guard<std::mutex> lock(mutex_);
  Watched* watched = findLocked(inv.id);
  if (watched == nullptr || exiting_) return;  // unregistered meanwhile
  watched->unreachableSinceWallNs = inv.unreachableSinceWallNs;
  if (!anyBlocking(findings) || (inv.peerCheckOnly && watched->aborted)) return;
  bool fresh = false;
  for (const Finding& finding : findings) fresh |= watched->printed.insert(finding.key()).second;
  if (!fresh && !inv.peerCheckOnly) return;  // a gone peer fails the communicator even if printed before
  const std::string comm = commText(*watched);
  std::vector<std::string> lines;
  bool mismatch = false;
  for (const Finding& finding : findings) {
    FCCL_WARN("hang verdict [comm %s, seen by rank %d of %d]: %s", comm.c_str(), self, nranks,
              finding.text.c_str());
    lines.push_back(finding.text);
    mismatch |= finding.blocking && finding.kind == Finding::Kind::kMismatch;
  }
  dumpLocked(watched, "verdict", lines);
  if (inv.peerCheckOnly) {
    // A gone process never answers anybody, so no grace: the communicator fails now, whatever
    // FLASHCCL_HANG_ACTION says (NCCL too fails a communicator whose peer process exited), and
    // with revoke it is revoked.
    failComm(*watched, ncclRemoteError, "a peer's process is gone");
    return;
  }
  if (settings_.action != TraceSettings::Action::kReport && watched->abortAtNs == 0) {
    // NCCL's words: a peer gone or stuck is a remote error; ranks calling different things is
    // the application's misuse. Abort not at once: an aborted communicator disappears (and its
    // process often with it), and the other ranks, whose timeouts end about now, still need
    // its answer to reach the same verdict. Revoke at once: a revoked communicator stays and
    // answers until the application destroys it, which a survivor does only after shrinking it,
    // together with every other survivor, each after its own verdict.
    watched->abortReason = mismatch ? ncclInvalidUsage : ncclRemoteError;
    watched->abortAtNs =
        traceNowNs() + (settings_.action == TraceSettings::Action::kRevoke ? 0 : abortGraceNs());
    wake();
  }
}

void Watchdog::failComm(Watched& watched, ncclResult_t reason, const char* why) {
  const bool revoke = settings_.action == TraceSettings::Action::kRevoke;
  FCCL_WARN("hang action: %s comm %s (rank %d of %d) with %s%s%s", revoke ? "revoking" : "aborting",
            commText(watched).c_str(), watched.identity.rank, watched.identity.nranks,
            reason == ncclInvalidUsage ? "ncclInvalidUsage" : "ncclRemoteError", *why ? ": " : "", why);
  watched.aborted = true;
  if (revoke) {
    watched.comm->revoke(reason);
  } else {
    watched.comm->abort(reason);
  }
}

int64_t Watchdog::abortGraceNs() const {
  return settings_.pollIntervalNs() + static_cast<int64_t>(settings_.queryTimeoutMs()) * 1000000 +
         500000000;
}

void Watchdog::abandonAfterFork() {
  if (ownsDumpSignal_) detachDumpSignal();
  if (server_) server_->abandonAfterFork();
  for (int fd : {wakeRead_, wakeWrite_}) {
    if (fd >= 0) close(fd);
  }
  // Nothing else is touched: the mutex may have been held by a thread that does not exist here.
}

void Watchdog::childAfterFork() {
  if (Watchdog* parents = gProcessWatchdog.exchange(nullptr)) parents->abandonAfterFork();
}

void Watchdog::onExit() {
  if (Watchdog* watchdog = gProcessWatchdog.load(std::memory_order_acquire)) {
    // Waits out a call into a communicator in progress; none follows.
    std::lock_guard<std::mutex> lock(watchdog->mutex_);
    watchdog->exiting_ = true;
  }
}

Watchdog* Watchdog::process() {
  if (traceSettings().mode == TraceSettings::Mode::kOff) return nullptr;
  Watchdog* current = gProcessWatchdog.load(std::memory_order_acquire);
  if (current != nullptr) return current;
  auto* fresh = new Watchdog(traceSettings(), /*ownsDumpSignal=*/true);
  if (!gProcessWatchdog.compare_exchange_strong(current, fresh)) {
    delete fresh;  // another thread made it first; this one never started anything
    return current;
  }
  if (!gProcessHooksInstalled.exchange(true)) {
    pthread_atfork(nullptr, nullptr, &Watchdog::childAfterFork);
    std::atexit(&Watchdog::onExit);
  }
  return fresh;
}

std::unique_ptr<FlightRecorder> makeFlightRecorder(int cudaDev) {
  const TraceSettings& settings = traceSettings();
  if (settings.mode == TraceSettings::Mode::kOff) return nullptr;
  auto recorder = std::make_unique<FlightRecorder>(settings.entries);
  if (settings.mode == TraceSettings::Mode::kFull) {
    recorder->setCompletionProbe(makeCudaEventProbe(recorder->capacity(), cudaDev));
  }
  return recorder;
}

TraceEndpoint traceEndpointForNewComm(int cudaDev) {
  Watchdog* watchdog = Watchdog::process();
  return watchdog ? watchdog->endpointForNewComm(cudaDev) : endpointWithoutChannel(cudaDev);
}

void registerTracedComm(TracedComm* comm) {
  if (Watchdog* watchdog = Watchdog::process()) watchdog->add(comm);
}

void unregisterTracedComm(TracedComm* comm) {
  if (Watchdog* watchdog = gProcessWatchdog.load(std::memory_order_acquire)) watchdog->remove(comm);
}

void dumpTracedCommAtAbort(TracedComm* comm) {
  if (Watchdog* watchdog = gProcessWatchdog.load(std::memory_order_acquire)) watchdog->dumpAtAbort(comm);
}

}  // namespace flashccl
