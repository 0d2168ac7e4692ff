// The hang watchdog: one thread per process (started with the first traced communicator) plus
// the side channel's thread. It observes every registered communicator's flight recorder; when a
// call has waited FLASHCCL_HANG_TIMEOUT, it asks every rank of that communicator for its
// progress over the side channel, prints one verdict line per finding (verdict.h), writes a dump,
// and with FLASHCCL_HANG_ACTION=abort makes the communicator fail (revoke: and revokes it). A peer
// that asks us while it waits makes us look too, so the verdict is also printed (and dumped) where
// the culprit runs. A peer whose process is gone is no hang: while a call waits, the watchdog
// checks that its peers' side channels still accept (trace_settings.h, peerCheckAfterNs), and one
// that refuses fails the communicator at once, whatever the timeout and the action.
//
// Living inside other people's processes: both threads only ever block in poll() with a timeout;
// neither keeps the process alive (the process-wide watchdog is never destroyed and its threads
// die with the process); after exit() has begun it no longer touches communicators; a child made
// by fork() drops the parent's watchdog (its sockets included) and starts afresh if it uses
// NCCL; the library pins itself in memory (RTLD_NODELETE) before starting threads, so a dlclose
// cannot unmap code they run.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "trace/side_channel.h"
#include "trace/trace_settings.h"
#include "trace/traced_comm.h"

namespace flashccl {

class Watchdog final : private ProgressAnswerer {
 public:
  // `ownsDumpSignal`: install the FLASHCCL_TRACE_SIGNAL handler (the process-wide one only).
  Watchdog(const TraceSettings& settings, bool ownsDumpSignal);
  ~Watchdog() override;  // stops and joins both threads (tests; the process-wide one is never destroyed)
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // This rank's record for a new communicator's set-up exchange: the side channel's address
  // (started at the first call) and a fresh token. Without a side channel (it could not start)
  // the record says so, and the communicator is still traced locally.
  TraceEndpoint endpointForNewComm(int cudaDev);
  // From registration on, the communicator is watched and answers peers' queries. After
  // remove() returns, neither thread touches it again.
  void add(TracedComm* comm);
  void remove(TracedComm* comm);
  // Writes the flight recorder of `comm` (nullptr: of every communicator) to the dump directory
  // now. Returns the file's path, or "" (with a WARN) when it could not.
  std::string dump(TracedComm* comm, const std::string& reason);
  // At ncclCommAbort: the same, unless every call on `comm` is known to have completed. Some
  // PyTorch versions end every job with ncclCommAbort; a clean end must not leave files behind.
  std::string dumpAtAbort(TracedComm* comm);
  // What the dump signal does: the watchdog thread writes a dump of every communicator.
  void requestDump();

  // The process-wide watchdog; nullptr when FLASHCCL_TRACE=0.
  static Watchdog* process();

  struct Watched;
  struct Investigation;

 private:
  bool answer(const ProgressQuery& query, std::string* reply) override;
  void startThreadLocked();
  void wake();
  void run();
  void pass();
  void investigate(Investigation& investigation);
  std::string dumpLocked(Watched* only, const std::string& reason,
                         const std::vector<std::string>& verdict);
  Watched* findLocked(uint64_t id);
  static std::string commText(const Watched& watched);
  // How long the hang action waits after this rank's verdict: one poll and one query of the
  // other ranks, whose timeouts end at about the same time, plus margin.
  int64_t abortGraceNs() const;
  // The hang action on `watched` (abort, or revoke with FLASHCCL_HANG_ACTION=revoke), with the
  // WARN that says so; `why` (may be empty) is added to it. Holds mutex_.
  void failComm(Watched& watched, ncclResult_t reason, const char* why);
  void abandonAfterFork();
  static void childAfterFork();
  static void onExit();

  const TraceSettings settings_;
  const bool ownsDumpSignal_;
  std::mutex mutex_;  // the registry; held only for short, non-blocking work
  std::vector<std::unique_ptr<Watched>> watched_;
  uint64_t nextId_ = 1;
  bool exiting_ = false;
  bool serverTried_ = false;
  std::unique_ptr<SideChannelServer> server_;
  int wakeRead_ = -1;
  int wakeWrite_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> dumpRequested_{false};
  std::thread thread_;
};

// ---- The runtime's API (the process-wide watchdog; no-ops when FLASHCCL_TRACE=0) ----

// A recorder for a new communicator, as the settings say: nullptr when tracing is off; with a
// CUDA-event probe for forwarded calls when FLASHCCL_TRACE=full.
std::unique_ptr<FlightRecorder> makeFlightRecorder(int cudaDev);
// This rank's 64-byte record for the set-up exchange.
TraceEndpoint traceEndpointForNewComm(int cudaDev);
void registerTracedComm(TracedComm* comm);
void unregisterTracedComm(TracedComm* comm);
// At ncclCommAbort (before unregistering): writes the communicator's recorder to a dump, unless
// every call on it is known to have completed.
void dumpTracedCommAtAbort(TracedComm* comm);

}  // namespace flashccl
