// Every algorithm, built-in kernel or MSCCL XML program, behind one small interface.
#pragma once

#include <nccl.h>

#include <memory>
#include <string>
#include <vector>

#include "base/coll_call.h"

namespace flashccl {

class CommView;

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  // Stable name used in selection tables, FLASHCCL_ALGO, logs and the perf table.
  virtual const char* name() const = 0;
  // The one collective this algorithm implements.
  virtual CollKind kind() const = 0;
  // Cheap and free of side effects. Must give the same answer on every rank for the same call:
  // it may look at kind, count, dtype, op and the communicator, never at pointers or the rank.
  virtual bool supports(const CollCall& call, const CommView& ctx) const = 0;
  // Enqueue the collective on call.stream. No allocation, no synchronisation.
  virtual ncclResult_t launch(const CollCall& call, const CommView& ctx) = 0;
  // What the algorithm runs beyond its name, for the set-up agreement: an XML program's text
  // (two ranks may find different files under one name). 0 for built-ins (their code is ours).
  virtual uint64_t contentFingerprint() const { return 0; }
  // Called once at communicator set-up, after the peer buffers exist and before the ranks agree
  // on the set-up, with the communicator's device current: the place to allocate and upload what
  // launch() needs. False (with *why) fails the set-up on every rank, so all fall back together.
  virtual bool prepare(const CommView& ctx, std::string* why) { return true; }
  // True for the algorithms of communicators that span nodes (our kernels inside each node, the
  // real NCCL between nodes on the rails: hierarchy.h). Selection keeps only the rows whose
  // algorithm fits the communicator's node count; set-up creates the rails only when some row
  // needs them; and inside ncclGroupStart/End such an algorithm runs after NCCL's group has
  // ended, because its own NCCL calls would otherwise join the group and wait for its end.
  virtual bool spansNodes() const { return false; }
  // Whether launch() streams this call through the chunk slots (rather than LL packets only). A
  // communicator still on its small buffer grows before such a call (docs/design.md, "Memory
  // grows with use"): chunk counters must never advance on a buffer that is then replaced. The
  // same answer on every rank, like supports(); true when unsure.
  virtual bool usesChunkSlots(const CollCall& call, const CommView& ctx) const { return true; }
  // True when supports() depends on more of the buffer layout than the LL payload capacity (MSCCL
  // programs fit their tiles and channels to the slots and lanes): such a call could be routed
  // differently on the small buffer, so the communicator maps its full buffer at set-up instead
  // of growing it at its first large call (docs/design.md, "Memory grows with use").
  virtual bool needsFullBufferAtSetUp() const { return false; }
};

// The built-in algorithms, in no particular order (selection tables decide). Owned by the
// process; never destroyed before exit.
const std::vector<Algorithm*>& builtinAlgorithms();

// Looks a built-in up by name; nullptr if there is none.
Algorithm* findBuiltinAlgorithm(const char* name);

// An algorithm the process owns (a built-in, a test's static), in the shared form selectors hold
// (select/selector.h): the pointer is never deleted.
inline std::shared_ptr<Algorithm> unownedAlgorithm(Algorithm* algorithm) {
  return std::shared_ptr<Algorithm>(algorithm, [](Algorithm*) {});
}

}  // namespace flashccl
