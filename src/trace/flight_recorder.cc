#include "trace/flight_recorder.h"

#include <algorithm>

#include "trace/trace_clock.h"

namespace flashccl {

// Nine words, written as one seqlock payload per call.
struct FlightRecorder::StoredEntry {
  uint64_t recordId;
  uint64_t seq;
  int64_t enqueueNs;
  uint64_t count;
  uint64_t stream;
  uint64_t algorithm;
  uint64_t launch;
  uint8_t kind;
  uint8_t flags;
  uint8_t unused[2];
  int32_t dtype;
  int32_t op;
  int32_t peer;
};

struct FlightRecorder::Observation {
  uint64_t recordId;
  int64_t startedNs;
  int64_t completedNs;
};

namespace {

enum EntryFlags : uint8_t {
  kFlagGrouped = 1,
  kFlagCaptured = 2,
  kFlagProbed = 4,  // forwarded while a probe was attached: its marks tell its progress
  kFlagLaunchFailed = 8,
};

uint64_t roundUpToPowerOfTwo(size_t entries) {
  const size_t wanted = std::min<size_t>(std::max<size_t>(entries, 1), size_t{1} << 20);
  uint64_t size = 1;
  while (size < wanted) size <<= 1;
  return size;
}

}  // namespace

const char* callStateName(CallState state) {
  switch (state) {
    case CallState::kUntracked: return "untracked";
    case CallState::kCaptured: return "captured";
    case CallState::kEnqueued: return "scheduled";
    case CallState::kStarted: return "started";
    case CallState::kCompleted: return "completed";
    case CallState::kFailed: return "failed";
  }
  return "untracked";
}

FlightRecorder::FlightRecorder(size_t entries)
    : mask_(roundUpToPowerOfTwo(entries) - 1),
      entries_(new SeqlockSlot<StoredEntry>[mask_ + 1]),
      observations_(new SeqlockSlot<Observation>[mask_ + 1]) {}

FlightRecorder::~FlightRecorder() = default;

void FlightRecorder::setDeviceProgress(const volatile uint64_t* started,
                                       const volatile uint64_t* completed) {
  startedWord_ = started;
  completedWord_ = completed;
}

void FlightRecorder::setCompletionProbe(std::unique_ptr<CompletionProbe> probe) {
  if (probe && !probeArmed_) {
    probeArmed_.reset(new std::atomic<uint64_t>[mask_ + 1]);
    for (uint64_t i = 0; i <= mask_; ++i) probeArmed_[i].store(0, std::memory_order_relaxed);
  }
  probe_ = std::move(probe);
}

RecordTicket FlightRecorder::record(const TraceCall& call) {
  const uint64_t id = next_;
  uint64_t seq = 0;
  if (isCollective(call.kind)) {
    seq = collectiveSeq_.load(std::memory_order_relaxed) + 1;
    collectiveSeq_.store(seq, std::memory_order_relaxed);
  } else if (isP2p(call.kind)) {
    seq = p2pSeq_.load(std::memory_order_relaxed) + 1;
    p2pSeq_.store(seq, std::memory_order_relaxed);
  }
  StoredEntry entry;
  entry.recordId = id;
  entry.seq = seq;
  entry.enqueueNs = traceNowNs();
  entry.count = call.count;
  entry.stream = reinterpret_cast<uint64_t>(call.stream);
  entry.algorithm = reinterpret_cast<uint64_t>(call.algorithm);
  entry.launch = call.launch;
  entry.kind = static_cast<uint8_t>(call.kind);
  // Probed: what the runtime marks (dispatch.cc): a forwarded call outside a group. Inside one,
  // NCCL launches at the group's end and no marks are placed, so such a call is untracked.
  entry.flags = (call.grouped ? kFlagGrouped : 0) | (call.captured ? kFlagCaptured : 0) |
                (probe_ && call.launch == 0 && !call.captured && !call.grouped && !isGroupMark(call.kind)
                     ? kFlagProbed : 0);
  entry.unused[0] = entry.unused[1] = 0;
  entry.dtype = call.dtype;
  entry.op = call.op;
  entry.peer = call.peer;
  entries_[id & mask_].write(entry);
  next_ = id + 1;
  published_.store(id + 1, std::memory_order_release);
  return {id, seq};
}

void FlightRecorder::beforeForwarded(const RecordTicket& ticket, const void* stream) {
  if (!probe_) return;
  const size_t slot = ticket.recordId & mask_;
  // Declined until both marks are placed; an observer never trusts the marks of another record.
  probeArmed_[slot].store((ticket.recordId + 1) << 1, std::memory_order_release);
  probe_->markBefore(slot, stream);
}

void FlightRecorder::afterForwarded(const RecordTicket& ticket, const void* stream) {
  if (!probe_) return;
  const size_t slot = ticket.recordId & mask_;
  // markBefore may have declined (a capturing stream): then markAfter declines as well.
  const bool marked = probe_->markAfter(slot, stream);
  probeArmed_[slot].store(((ticket.recordId + 1) << 1) | (marked ? 1 : 0),
                          std::memory_order_release);
}

void FlightRecorder::markLaunchFailed(const RecordTicket& ticket) {
  StoredEntry entry;
  // The writer reads its own entry: nothing else writes it. Gone when the ring has moved past it.
  if (!readStored(ticket.recordId, &entry)) return;
  entry.flags |= kFlagLaunchFailed;
  entries_[ticket.recordId & mask_].write(entry);
}

FlightRecorder::ProbeMarks FlightRecorder::probeMarksOf(uint64_t recordId) const {
  if (!probeArmed_) return ProbeMarks::kNotPlaced;
  const uint64_t word = probeArmed_[recordId & mask_].load(std::memory_order_acquire);
  if ((word >> 1) != recordId + 1) return ProbeMarks::kNotPlaced;
  return (word & 1) ? ProbeMarks::kArmed : ProbeMarks::kDeclined;
}

bool FlightRecorder::probeArmedFor(uint64_t recordId) const {
  return probeMarksOf(recordId) == ProbeMarks::kArmed;
}

FlightRecorder::DeviceProgress FlightRecorder::deviceProgress() const {
  DeviceProgress progress;
  if (startedWord_ == nullptr || completedWord_ == nullptr) return progress;
  progress.known = true;
  // Completed first: a kernel stamps "started" before "completed", so reading in the opposite
  // order can never show a launch completed but not started.
  progress.completed = *completedWord_;
  progress.started = *startedWord_;
  return progress;
}

bool FlightRecorder::readStored(uint64_t recordId, StoredEntry* out) const {
  return entries_[recordId & mask_].read(out) && out->recordId == recordId;
}

RecordedCall FlightRecorder::expand(const StoredEntry& stored,
                                    const DeviceProgress& progress) const {
  RecordedCall call;
  call.recordId = stored.recordId;
  call.seq = stored.seq;
  call.enqueueNs = stored.enqueueNs;
  call.call.kind = static_cast<TraceKind>(stored.kind);
  call.call.grouped = stored.flags & kFlagGrouped;
  call.call.captured = stored.flags & kFlagCaptured;
  call.call.dtype = stored.dtype;
  call.call.op = stored.op;
  call.call.peer = stored.peer;
  call.call.count = stored.count;
  call.call.stream = reinterpret_cast<const void*>(stored.stream);
  call.call.algorithm = reinterpret_cast<const char*>(stored.algorithm);
  call.call.launch = stored.launch;

  Observation seen{stored.recordId, 0, 0};
  Observation observed;
  if (observations_[stored.recordId & mask_].read(&observed) &&
      observed.recordId == stored.recordId) {
    seen = observed;
  }
  call.startedNs = seen.startedNs;
  call.completedNs = seen.completedNs;

  if (stored.flags & kFlagLaunchFailed) {
    call.state = CallState::kFailed;
  } else if (isGroupMark(call.call.kind)) {
    // Host-side marks: done when made.
    call.state = CallState::kCompleted;
    call.startedNs = call.completedNs = call.enqueueNs;
  } else if (call.call.captured) {
    call.state = CallState::kCaptured;
  } else if (call.call.launch != 0) {
    if (!progress.known) {
      call.state = CallState::kUntracked;
    } else if (progress.completed >= call.call.launch) {
      call.state = CallState::kCompleted;
    } else if (progress.started >= call.call.launch) {
      call.state = CallState::kStarted;
    } else {
      call.state = CallState::kEnqueued;
    }
  } else if ((stored.flags & kFlagProbed) && probeMarksOf(stored.recordId) != ProbeMarks::kDeclined) {
    // The observer's stamps are the probe's word (only it queries the marks).
    call.state = seen.completedNs ? CallState::kCompleted
                 : seen.startedNs ? CallState::kStarted
                                  : CallState::kEnqueued;
  } else {  // not followed, or the probe declined it (a capturing stream): nothing tells when it ran
    call.state = CallState::kUntracked;
  }
  return call;
}

std::vector<RecordedCall> FlightRecorder::tail(size_t maxEntries) const {
  const uint64_t end = recorded();
  const uint64_t span = std::min<uint64_t>({end, maxEntries, mask_ + 1});
  const DeviceProgress progress = deviceProgress();
  std::vector<RecordedCall> calls;
  calls.reserve(span);
  StoredEntry stored;
  for (uint64_t id = end - span; id < end; ++id) {
    // An entry the writer has lapped (or is rewriting) is skipped, not waited for.
    if (readStored(id, &stored)) calls.push_back(expand(stored, progress));
  }
  return calls;
}

void FlightRecorder::observe(int64_t nowNs) {
  const uint64_t end = recorded();
  if (end > mask_ + 1) observeCursor_ = std::max(observeCursor_, end - (mask_ + 1));
  const DeviceProgress progress = deviceProgress();
  bool settledSoFar = true;
  StoredEntry stored;
  for (uint64_t id = observeCursor_; id < end; ++id) {
    if (!readStored(id, &stored)) {
      if (settledSoFar) observeCursor_ = id + 1;  // lapped by the writer: gone
      continue;
    }
    bool started = false, completed = false, settled = false;
    if (isGroupMark(static_cast<TraceKind>(stored.kind)) || (stored.flags & kFlagCaptured)) {
      settled = true;
    } else if (stored.launch != 0) {
      if (!progress.known) {
        settled = true;
      } else {
        started = progress.started >= stored.launch;
        completed = progress.completed >= stored.launch;
      }
    } else if (stored.flags & kFlagProbed) {
      if (probeArmedFor(id)) {
        const size_t slot = id & mask_;
        completed = probe_->reachedAfter(slot) == CompletionProbe::Reached::kYes;
        started = completed || probe_->reachedBefore(slot) == CompletionProbe::Reached::kYes;
        // The marks were re-placed for a later record while we asked: the answer is not ours.
        if (!probeArmedFor(id)) started = completed = false;
      } else if (probeMarksOf(id) == ProbeMarks::kDeclined) {
        settled = true;  // the probe declined this call
      }
    } else {
      settled = true;  // untracked
    }

    Observation observed;
    Observation seen{id, 0, 0};
    if (observations_[id & mask_].read(&observed) && observed.recordId == id) seen = observed;
    Observation updated = seen;
    if (started && updated.startedNs == 0) updated.startedNs = nowNs;
    if (completed && updated.completedNs == 0) updated.completedNs = nowNs;
    if (updated.startedNs != seen.startedNs || updated.completedNs != seen.completedNs) {
      observations_[id & mask_].write(updated);
    }
    settled = settled || completed;
    if (settledSoFar && settled) {
      observeCursor_ = id + 1;
    } else {
      settledSoFar = false;
    }
  }
}

}  // namespace flashccl
