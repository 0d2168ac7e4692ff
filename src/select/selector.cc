#include "select/selector.h"

#include <cstring>
#include <sstream>

#include "algo/algorithm.h"
#include "base/hash.h"
#include "algo/comm_view.h"

namespace flashccl {

namespace reason {
const char* const kDisabled = "flashccl disabled for this communicator";
const char* const kNotReady = "set-up not done yet";
const char* const kForcedNccl = "selection names NCCL";
const char* const kNoRow = "no selection row for this size";
const char* const kUnsupported = "algorithm does not support this call";
const char* const kZeroCount = "zero count";
const char* const kInvalidArgument = "invalid argument (left to NCCL's checks)";
const char* const kNested = "nested call from NCCL";
const char* const kUnknownComm = "unknown communicator";
const char* const kUnmeasured = "selection table not measured on this machine class (FLASHCCL_UNMEASURED=1 arms it)";
}  // namespace reason

namespace {

bool parseKind(const std::string& text, CollKind* kind) {
  for (int k = 0; k < kNumCollKinds; ++k) {
    if (text == collKindName(static_cast<CollKind>(k))) {
      *kind = static_cast<CollKind>(k);
      return true;
    }
  }
  return false;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

}  // namespace

std::unique_ptr<Selector> Selector::build(const SelectionTable& table, const std::string& forced,
                                          int nranks, int nnodes, AlgorithmResolver resolve,
                                          std::string* warnings, bool armUnmeasured) {
  std::unique_ptr<Selector> selector(new Selector());
  selector->nranks_ = nranks;
  selector->nnodes_ = nnodes;
  selector->tableHash_ = table.contentHash;
  selector->tableName_ = table.name;
  uint64_t hash = kFnvOffset;

  // A table not measured on this machine class arms nothing unless the user asks for it.
  selector->unmeasured_ = table.unmeasured && !armUnmeasured;
  hash = fnv1aValue(hash, selector->unmeasured_);
  static const std::vector<SelectionRow> kNoRows;
  for (const SelectionRow& row : selector->unmeasured_ ? kNoRows : table.rows) {  // a reference, no copy
    if (row.nranks != 0 && row.nranks != nranks) continue;
    if (row.nnodes != 0 && row.nnodes != nnodes) continue;
    Algorithm* algorithm = nullptr;
    int id = 0;
    // A row the table's measurements do not cover forwards the calls it would take, unless the
    // user opts in; its algorithm is not resolved, so nothing is prepared (nor rails made) for it.
    const bool leftOut = row.unmeasured && !armUnmeasured && row.algorithm != "nccl";
    if (leftOut) selector->unmeasuredRows_ = true;
    if (row.algorithm != "nccl" && !leftOut) {
      std::string error;
      bool wrongNodes = false;
      algorithm = selector->resolveOnce(row.algorithm, resolve, &error, &id, &wrongNodes);
      if (algorithm == nullptr) {
        // A row for any node count names a one-node algorithm on a communicator across nodes (or
        // the other way round): not this communicator's row, and nothing wrong with the table.
        if (warnings && !wrongNodes) *warnings += row.source + ": " + error + "; row skipped\n";
        continue;
      }
      if (algorithm->kind() != row.kind) {
        if (warnings) {
          *warnings += row.source + ": " + row.algorithm + " implements " +
                       collKindName(algorithm->kind()) + ", not " + collKindName(row.kind) +
                       "; row skipped\n";
        }
        continue;
      }
    }
    selector->rows_[static_cast<int>(row.kind)].push_back({row, algorithm, id, leftOut});
    hash = fnv1aValue(hash, leftOut);
    int kind = static_cast<int>(row.kind);
    hash = fnv1a(hash, &kind, sizeof(kind));
    hash = fnv1a(hash, &row.minBytes, sizeof(row.minBytes));
    hash = fnv1a(hash, &row.maxBytes, sizeof(row.maxBytes));
    hash = fnv1a(hash, row.algorithm);
  }

  // FLASHCCL_ALGO: "nccl", "name", or "kind:name,kind:name".
  for (const std::string& item : splitList(forced)) {
    std::string name = item;
    int onlyKind = -1;
    size_t colon = item.find(':');
    if (colon != std::string::npos) {
      CollKind kind;
      if (!parseKind(item.substr(0, colon), &kind)) {
        if (warnings) *warnings += "FLASHCCL_ALGO: unknown collective in '" + item + "'\n";
        continue;
      }
      onlyKind = static_cast<int>(kind);
      name = item.substr(colon + 1);
    }
    for (int k = 0; k < kNumCollKinds; ++k) {
      if (onlyKind >= 0 && k != onlyKind) continue;
      if (name == "nccl") selector->forcedNccl_[k] = true;
    }
    if (name == "nccl") {
      hash = fnv1a(hash, item);
      continue;
    }
    std::string error;
    int id = 0;
    bool wrongNodes = false;
    Algorithm* algorithm = selector->resolveOnce(name, resolve, &error, &id, &wrongNodes);
    if (algorithm == nullptr) {
      if (warnings) *warnings += "FLASHCCL_ALGO: " + error + "\n";
      continue;
    }
    int k = static_cast<int>(algorithm->kind());
    if (onlyKind >= 0 && onlyKind != k) {
      if (warnings) {
        *warnings += "FLASHCCL_ALGO: " + name + " implements " + collKindName(algorithm->kind()) +
                     ", not " + collKindName(static_cast<CollKind>(onlyKind)) + "\n";
      }
      continue;
    }
    selector->forced_[k] = algorithm;
    selector->forcedId_[k] = id;
    hash = fnv1a(hash, item);
  }
  for (const auto& held : selector->held_) hash = fnv1aValue(hash, held.second->contentFingerprint());
  selector->fingerprint_ = hash;
  return selector;
}

Algorithm* Selector::resolveOnce(const std::string& name, AlgorithmResolver resolve, std::string* error, int* id,
                                 bool* wrongNodes) {
  for (size_t i = 0; i < held_.size(); ++i) {
    if (held_[i].first == name) {
      *id = static_cast<int>(i) + 1;
      return held_[i].second.get();
    }
  }
  std::shared_ptr<Algorithm> algorithm = resolve(name, nranks_, nnodes_, error);
  if (!algorithm) return nullptr;
  if (algorithm->spansNodes() != (nnodes_ > 1)) {
    *wrongNodes = true;
    *error = name + (nnodes_ > 1 ? " runs inside one node; this communicator spans " + std::to_string(nnodes_) + " nodes"
                                 : " runs across nodes; this communicator is on one node");
    return nullptr;
  }
  held_.emplace_back(name, algorithm);
  *id = static_cast<int>(held_.size());
  return algorithm.get();
}

bool Selector::spansNodes() const {
  // Every algorithm held fits the node count (resolveOnce), so across nodes any one spans them.
  return nnodes_ > 1 && !held_.empty();
}

bool Selector::prepareAlgorithms(const CommView& ctx, std::string* why) const {
  for (const auto& held : held_) {
    if (!held.second->prepare(ctx, why)) return false;
  }
  return true;
}

bool Selector::needsFullBufferAtSetUp() const {
  for (const auto& held : held_) {
    if (held.second->needsFullBufferAtSetUp()) return true;
  }
  return false;
}

Plan Selector::choose(const CollCall& call, const CommView& ctx) const {
  Plan plan;
  const int k = static_cast<int>(call.kind);
  if (forcedNccl_[k]) {
    plan.reason = reason::kForcedNccl;
    return plan;
  }
  if (forced_[k] != nullptr) {
    if (forced_[k]->supports(call, ctx)) {
      plan.algorithm = forced_[k];
      plan.algorithmId = forcedId_[k];
      plan.reason = "FLASHCCL_ALGO";
    } else {
      plan.reason = reason::kUnsupported;
    }
    return plan;
  }
  const size_t bytes = totalBytes(call, nranks_);
  plan.reason = unmeasured_ ? reason::kUnmeasured : reason::kNoRow;
  for (const CompiledRow& compiled : rows_[k]) {
    if (!compiled.row.matches(call.kind, nranks_, nnodes_, bytes)) continue;
    if (compiled.algorithm == nullptr) {
      plan.reason = compiled.leftOut ? reason::kUnmeasured : reason::kForcedNccl;
      plan.row = &compiled.row;
      return plan;
    }
    if (compiled.algorithm->supports(call, ctx)) {
      plan.algorithm = compiled.algorithm;
      plan.algorithmId = compiled.algorithmId;
      plan.row = &compiled.row;
      plan.reason = compiled.row.source.c_str();
      return plan;
    }
    plan.reason = reason::kUnsupported;  // keep looking: a later row may take it
  }
  return plan;
}

std::string Selector::describe() const {
  std::ostringstream out;
  for (int k = 0; k < kNumCollKinds; ++k) {
    const char* kindName = collKindName(static_cast<CollKind>(k));
    if (forcedNccl_[k]) out << kindName << ": NCCL (FLASHCCL_ALGO)\n";
    if (forced_[k]) out << kindName << ": " << forced_[k]->name() << " (FLASHCCL_ALGO)\n";
    for (const CompiledRow& compiled : rows_[k]) {
      const SelectionRow& row = compiled.row;
      out << kindName << " [" << row.minBytes << ", ";
      if (row.maxBytes) out << row.maxBytes; else out << "inf";
      out << "] -> " << (compiled.algorithm ? compiled.algorithm->name() : "NCCL");
      if (compiled.leftOut) out << ", not measured here: " << row.algorithm << " (FLASHCCL_UNMEASURED=1)";
      out << "  (" << row.source << ")\n";
    }
  }
  return out.str();
}

}  // namespace flashccl
