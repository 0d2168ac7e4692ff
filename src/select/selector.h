// Selector: (CollCall, CommView) -> Plan {algorithm} or fallback {reason}.
//
// Built once per communicator at set-up from the selection table for this machine
// (topologies/*.xml or the built-in defaults) and the overrides (FLASHCCL_ALGO). choose() is on
// the hot path: no allocation, no locks, a short scan of pre-resolved rows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/coll_call.h"
#include "topo/selection_table.h"

namespace flashccl {

class Algorithm;
class CommView;

struct Plan {
  Algorithm* algorithm = nullptr;  // nullptr: forward to the real NCCL
  int algorithmId = 0;             // the algorithm's number in this selection (1..), for call headers
  const char* reason = nullptr;    // static string: why we forward, or which row matched
  const SelectionRow* row = nullptr;
};

// Fallback reasons (static strings; CommStats keys counters by these pointers).
namespace reason {
extern const char* const kDisabled;        // set-up failed or FLASHCCL_DISABLE
extern const char* const kNotReady;        // set-up not done yet (group, non-blocking)
extern const char* const kForcedNccl;      // FLASHCCL_ALGO=nccl or a row naming nccl
extern const char* const kNoRow;           // no selection row covers this size
extern const char* const kUnsupported;     // the chosen algorithm cannot run this call
extern const char* const kZeroCount;       // count == 0: NCCL's own no-op semantics
extern const char* const kInvalidArgument; // null buffer or unknown type: NCCL reports it
extern const char* const kNested;          // NCCL calling its own export
extern const char* const kUnknownComm;     // not a communicator we set up
extern const char* const kUnmeasured;      // the table was not measured on this machine class
}  // namespace reason

// Resolves an algorithm name from a table row or FLASHCCL_ALGO into an Algorithm: built-in names
// first, then XML files (loaded by msccl/). Returns nullptr and fills *error when unknown.
// Built-ins are shared process-wide (a no-op deleter); XML algorithms are made per communicator.
// `nnodes`: the nodes the communicator spans (an XML program cannot run across nodes: msccl/).
using AlgorithmResolver = std::shared_ptr<Algorithm> (*)(const std::string& name, int nranks, int nnodes,
                                                         std::string* error);

class Selector {
 public:
  // `table` rows for other rank or node counts are dropped here, so choose() scans only what can
  // match; so are rows whose algorithm does not fit the node count (one-node algorithms on a
  // communicator across nodes, algorithms across nodes on one node: Algorithm::spansNodes), since
  // a table may cover both with one "any" row. `forced` is FLASHCCL_ALGO ("" = none; "nccl" =
  // always fall back; "name" or "allreduce:name,allgather:name2").
  // `armUnmeasured` (FLASHCCL_UNMEASURED): use the rows of a table that was not measured on its
  // machine class, and the rows of a measured table's <group measured="no">; without it such a
  // table's rows are left out and every call forwards, and such a group's rows forward the calls
  // they cover (reason::kUnmeasured).
  static std::unique_ptr<Selector> build(const SelectionTable& table, const std::string& forced,
                                         int nranks, int nnodes, AlgorithmResolver resolve,
                                         std::string* warnings, bool armUnmeasured = false);

  Plan choose(const CollCall& call, const CommView& ctx) const;

  // A fingerprint of the compiled rows and overrides; ranks compare it at set-up, because
  // different choices on different ranks would hang.
  uint64_t fingerprint() const { return fingerprint_; }
  // The table the rows came from: its content hash (SelectionTable::contentHash) and name, which
  // ranks compare at set-up so that ranks that found different tables say which.
  uint64_t tableHash() const { return tableHash_; }
  const std::string& tableName() const { return tableName_; }
  // Human-readable rows, for `flashccl plan` and INFO logs.
  std::string describe() const;
  // Some row or FLASHCCL_ALGO runs an algorithm across nodes: set-up makes rails only then.
  bool spansNodes() const;
  // True when rows that this communicator could use were left out because they were not measured
  // on this machine class (the whole table, or a <group measured="no"> of it) and
  // FLASHCCL_UNMEASURED is not set: the calls they cover go to NCCL (bar FLASHCCL_ALGO).
  bool leftOutUnmeasured() const { return unmeasured_ || unmeasuredRows_; }

  // Algorithm::prepare() of every algorithm a row or FLASHCCL_ALGO names, at set-up. False with
  // *why at the first that fails.
  bool prepareAlgorithms(const CommView& ctx, std::string* why) const;
  // Whether an algorithm held needs the full peer buffer from set-up on
  // (Algorithm::needsFullBufferAtSetUp).
  bool needsFullBufferAtSetUp() const;

 private:
  struct CompiledRow {
    SelectionRow row;
    Algorithm* algorithm;  // nullptr = nccl
    int algorithmId;
    bool leftOut;          // an unmeasured row (SelectionRow::unmeasured) kept only to forward its calls
  };
  // Resolves `name` once per selector: rows naming the same file share one algorithm object.
  // *id: its number in held_ (from 1), the same on every rank that built the same selection.
  // Null with *error when unknown, or (with *wrongNodes set) when it does not fit the node count.
  Algorithm* resolveOnce(const std::string& name, AlgorithmResolver resolve, std::string* error, int* id,
                         bool* wrongNodes);

  std::vector<CompiledRow> rows_[kNumCollKinds];
  std::vector<std::pair<std::string, std::shared_ptr<Algorithm>>> held_;
  Algorithm* forced_[kNumCollKinds] = {nullptr, nullptr, nullptr};
  int forcedId_[kNumCollKinds] = {0, 0, 0};
  bool forcedNccl_[kNumCollKinds] = {false, false, false};
  int nranks_ = 0;
  int nnodes_ = 1;
  bool unmeasured_ = false;  // the table's rows were left out: not measured here, no opt-in
  bool unmeasuredRows_ = false;  // some rows for this communicator were left out likewise
  uint64_t fingerprint_ = 0;
  uint64_t tableHash_ = 0;
  std::string tableName_;
};

}  // namespace flashccl
