// The flight recorder of one communicator: a ring of the last N calls made on it, intercepted and
// forwarded alike, with what became of each on the GPU.
//
// Threads. One writer: the thread that calls the communicator (NCCL requires that calls on one
// communicator are not made concurrently). record() takes no lock and costs a few stores and a
// coarse clock read (bench/trace_record measures it). One observer at a time: the watchdog,
// which calls observe() under its registry lock to stamp when each call was first seen started
// and completed. Any number of
// readers (the watchdog, the side channel, a dump): each slot is a sequence lock, so a reader gets
// a consistent copy of an entry or knows it lost the race with the writer, and never blocks it.
//
// Progress. Our kernels stamp the sequence number of the call they started (its first kernel) and
// completed (its last) into two host-mapped words per communicator (setDeviceProgress); an entry
// with launch L (that number) has started when the started word is >= L. Forwarded calls are followed through an optional CompletionProbe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "trace/completion_probe.h"
#include "trace/seqlock_slot.h"
#include "trace/trace_call.h"

namespace flashccl {

enum class CallState : uint8_t {
  kUntracked = 0,  // forwarded without a probe: nothing tells when it ran
  kCaptured,       // recorded into a CUDA graph: it runs at replay
  kEnqueued,       // handed to the GPU (or to NCCL), not seen started
  kStarted,
  kCompleted,
  kFailed,         // the call was made but its launch failed: it returned an error and never runs
};
const char* callStateName(CallState state);  // PyTorch's words where they exist: "scheduled", ...
// Handed to the GPU (or NCCL) and not known to have completed: what a waiting rank is in.
inline bool isPending(CallState state) { return state == CallState::kEnqueued || state == CallState::kStarted; }

// One entry as readers get it. Times are traceNowNs() stamps; 0 means "not seen".
struct RecordedCall {
  uint64_t recordId = 0;  // position in the recorder's history, from 0
  uint64_t seq = 0;       // collective or p2p sequence number (from 1); 0 for group marks
  TraceCall call;
  int64_t enqueueNs = 0;
  CallState state = CallState::kUntracked;
  int64_t startedNs = 0;    // when the observer first saw it started
  int64_t completedNs = 0;  // when the observer first saw it completed
};

// What record() hands back: the entry's place and the call's sequence number on the
// communicator (the number that ranks agree on, issue 12).
struct RecordTicket {
  uint64_t recordId;
  uint64_t seq;
};

class FlightRecorder {
 public:
  // `entries` is rounded up to a power of two (1 .. 2^20).
  explicit FlightRecorder(size_t entries);
  ~FlightRecorder();
  FlightRecorder(const FlightRecorder&) = delete;
  FlightRecorder& operator=(const FlightRecorder&) = delete;

  // ---- set-up (before calls are recorded) ----
  // The host-mapped words our kernels stamp; nullptr: this communicator runs no kernels of ours.
  void setDeviceProgress(const volatile uint64_t* started, const volatile uint64_t* completed);
  // Follows forwarded calls from now on (FLASHCCL_TRACE=full). The recorder owns the probe.
  void setCompletionProbe(std::unique_ptr<CompletionProbe> probe);
  bool followsForwardedCalls() const { return probe_ != nullptr; }

  // ---- the writer thread ----
  RecordTicket record(const TraceCall& call);
  // Around a forwarded call recorded as `ticket`, when followsForwardedCalls().
  void beforeForwarded(const RecordTicket& ticket, const void* stream);
  void afterForwarded(const RecordTicket& ticket, const void* stream);
  // The call recorded as `ticket` failed to launch (its error went back to the caller): it stays
  // in the history, in its place, as failed, so that a peer waiting for it learns why.
  void markLaunchFailed(const RecordTicket& ticket);

  // ---- one observer at a time ----
  void observe(int64_t nowNs);

  // ---- any thread ----
  size_t capacity() const { return mask_ + 1; }
  uint64_t recorded() const { return published_.load(std::memory_order_acquire); }
  uint64_t lastCollectiveSeq() const { return collectiveSeq_.load(std::memory_order_relaxed); }
  uint64_t lastP2pSeq() const { return p2pSeq_.load(std::memory_order_relaxed); }
  struct DeviceProgress {
    bool known = false;
    uint64_t started = 0;
    uint64_t completed = 0;
  };
  DeviceProgress deviceProgress() const;
  // The newest `maxEntries` entries that could be read consistently, oldest first.
  std::vector<RecordedCall> tail(size_t maxEntries) const;

 private:
  struct StoredEntry;
  struct Observation;
  bool readStored(uint64_t recordId, StoredEntry* out) const;
  RecordedCall expand(const StoredEntry& stored, const DeviceProgress& progress) const;
  // Whether both marks of a forwarded entry were placed (armed), the probe declined them (a
  // capturing stream), or neither yet (not placed, or placed for another record of the slot).
  enum class ProbeMarks { kNotPlaced, kDeclined, kArmed };
  ProbeMarks probeMarksOf(uint64_t recordId) const;
  bool probeArmedFor(uint64_t recordId) const;

  const uint64_t mask_;
  std::unique_ptr<SeqlockSlot<StoredEntry>[]> entries_;
  std::unique_ptr<SeqlockSlot<Observation>[]> observations_;

  // Writer-owned; atomics only so that readers can look (stored with relaxed stores, no RMW).
  uint64_t next_ = 0;
  std::atomic<uint64_t> published_{0};
  std::atomic<uint64_t> collectiveSeq_{0};
  std::atomic<uint64_t> p2pSeq_{0};

  const volatile uint64_t* startedWord_ = nullptr;
  const volatile uint64_t* completedWord_ = nullptr;

  std::unique_ptr<CompletionProbe> probe_;
  // Per slot: (recordId << 1) | 1 once both marks of that record were placed, (recordId << 1)
  // when the probe declined it. Written after the marks, so an observer that sees its record
  // here knows the marks belong to it.
  std::unique_ptr<std::atomic<uint64_t>[]> probeArmed_;

  uint64_t observeCursor_ = 0;  // observer-owned: older entries are settled
};

}  // namespace flashccl
