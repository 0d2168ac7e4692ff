#include "plan/plan_report.h"

#include <cstdio>
#include <memory>
#include <sstream>

#include "algo/algorithm.h"
#include "base/config.h"
#include "runtime/comm_context.h"
#include "runtime/described_comm.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"

namespace flashccl {

namespace {

// Stand-in buffer addresses. Algorithms' supports() must not look at pointers (algorithm.h), but
// isInPlace() does, so in-place and out-of-place calls need the right relation between them.
char* const kRecvBase = reinterpret_cast<char*>(uintptr_t(1) << 40);
char* const kSendBase = reinterpret_cast<char*>(uintptr_t(1) << 41);

CollCall makeCall(CollKind kind, size_t count, ncclDataType_t dtype, ncclRedOp_t op, int rank,
                  bool inPlace) {
  CollCall call{};
  call.kind = kind;
  call.count = count;
  call.dtype = dtype;
  call.op = kind == CollKind::kAllGather ? ncclSum : op;
  call.root = 0;
  call.comm = nullptr;
  call.stream = nullptr;
  call.recv = kRecvBase;
  call.send = kSendBase;
  if (inPlace) {
    // NCCL's in-place layouts (coll_call.h): AllGather sends from the rank's slice of recv,
    // ReduceScatter receives into the rank's slice of send.
    const size_t shard = count * dtypeSize(dtype) * size_t(rank);
    if (kind == CollKind::kReduceScatter) {
      call.send = kRecvBase;
      call.recv = kRecvBase + shard;
    } else {
      call.send = kRecvBase + (kind == CollKind::kAllGather ? shard : 0);
    }
  }
  return call;
}

// Why the table's first matching row is not the one the Selector used, if it is not: the
// resolver's error for an algorithm this build does not have, or a supports() refusal.
std::string skippedRowNote(const SelectionRow& row, const CollCall& call, const CommView& ctx,
                           int nranks, int nnodes) {
  if (row.algorithm == "nccl") return "";
  std::string error;
  std::shared_ptr<Algorithm> algorithm = resolveAlgorithm(row.algorithm, nranks, nnodes, &error);
  if (algorithm == nullptr) return row.source + ": " + row.algorithm + " (not available: " + error + ")";
  if (algorithm->kind() != row.kind) {
    return row.source + ": " + row.algorithm + " (not available: it implements " +
           collKindName(algorithm->kind()) + ")";
  }
  if (!algorithm->supports(call, ctx)) {
    return row.source + ": " + row.algorithm + " (does not support this call)";
  }
  return "";
}

PlanDecision decide(const Selector& selector, const SelectionTable& table, const CollCall& call,
                    const CommView& ctx, int nranks, int nnodes) {
  PlanDecision decision;
  const Plan plan = selector.choose(call, ctx);
  if (plan.algorithm != nullptr) {
    decision.algorithm = plan.algorithm->name();
    decision.why = plan.row ? plan.row->source : std::string(plan.reason ? plan.reason : "");
  } else {
    decision.algorithm = "nccl";
    if (plan.row != nullptr && plan.reason == reason::kUnmeasured) {
      decision.why = plan.row->source + ": " + plan.row->algorithm + " left out, " + reason::kUnmeasured;
    } else if (plan.row != nullptr) decision.why = plan.row->source + " names nccl";
    else if (plan.reason == reason::kForcedNccl) decision.why = "FLASHCCL_ALGO names nccl";
    else decision.why = plan.reason ? plan.reason : "";
  }
  if (plan.reason != nullptr && std::string(plan.reason) == "FLASHCCL_ALGO") return decision;
  if (plan.reason == reason::kForcedNccl && plan.row == nullptr) return decision;

  // The Selector drops rows it cannot use when it is built, so a row the table lists first may
  // be missing from its choice; say which and why.
  const size_t bytes = totalBytes(call, nranks);
  const SelectionRow* first = table.firstMatch(call.kind, nranks, nnodes, bytes);
  if (first != nullptr && (plan.row == nullptr || plan.row->source != first->source)) {
    const std::string note = skippedRowNote(*first, call, ctx, nranks, nnodes);
    if (!note.empty()) decision.why = note + "; instead: " + decision.why;
  }
  return decision;
}

}  // namespace

std::string formatSize(size_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + kUnits[unit];
}

int printPlanSections(const PlanOptions& options, const SelectionTable& table, int nranks,
                      const Config& config, std::ostream& out) {
  std::string warnings;
  std::unique_ptr<Selector> selector = Selector::build(table, config.algo, nranks, options.nnodes, resolveAlgorithm,
                                                       &warnings, config.armUnmeasured);
  int problems = 0;
  if (!warnings.empty()) {
    out << "\nrows and overrides this build cannot use (the library skips them the same way):\n";
    std::istringstream lines(warnings);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      out << "  " << line << "\n";
      ++problems;
    }
  }

  // Rank 0's view, as in the library: supports() may look at the communicator, never at the
  // rank (algorithm.h), so every rank would print the same plan. No device: the context gets a
  // describe-only peer memory (the layout a set-up communicator would have, nothing allocated)
  // and is never launched on. cudaDev -1 says so.
  CommContext ctx(/*comm=*/nullptr, /*rank=*/0, nranks, /*cudaDev=*/-1, /*blocking=*/true);
  describeCommunicator(&ctx, options.nnodes);
  const size_t elementBytes = dtypeSize(options.dtype);

  for (CollKind kind : options.colls) {
    const size_t perElement = elementBytes * (kind == CollKind::kAllReduce ? 1 : size_t(nranks));
    out << "\n" << collKindName(kind) << " (" << dtypeName(options.dtype);
    if (kind != CollKind::kAllGather) out << ", " << redOpName(options.op);
    out << ", " << nranks << " ranks)\n";
    char line[96];
    std::snprintf(line, sizeof(line), "  %-10s %-13s %-22s %s\n", "size", "placement", "runs", "why");
    out << line;
    size_t previous = 0;
    for (size_t size : planSizes(options)) {
      // Like nccl-tests: the count is what fits, so the size shown is the one really used.
      const size_t count = size / perElement;
      const size_t bytes = count * perElement;
      if (count == 0) {
        std::snprintf(line, sizeof(line), "  %-10s %-13s %-22s ", formatSize(size).c_str(), "-", "-");
        out << line << "less than one " << dtypeName(options.dtype) << " per rank\n";
        continue;
      }
      if (bytes == previous) continue;
      previous = bytes;
      const PlanDecision inPlace =
          decide(*selector, table, makeCall(kind, count, options.dtype, options.op, 0, true), ctx,
                 nranks, options.nnodes);
      const PlanDecision outOfPlace =
          decide(*selector, table, makeCall(kind, count, options.dtype, options.op, 0, false), ctx,
                 nranks, options.nnodes);
      const std::string sizeText = formatSize(bytes);
      if (inPlace.algorithm == outOfPlace.algorithm && inPlace.why == outOfPlace.why) {
        std::snprintf(line, sizeof(line), "  %-10s %-13s %-22s ", sizeText.c_str(), "both",
                      inPlace.algorithm.c_str());
        out << line << inPlace.why << "\n";
      } else {
        std::snprintf(line, sizeof(line), "  %-10s %-13s %-22s ", sizeText.c_str(), "in-place",
                      inPlace.algorithm.c_str());
        out << line << inPlace.why << "\n";
        std::snprintf(line, sizeof(line), "  %-10s %-13s %-22s ", "", "out-of-place",
                      outOfPlace.algorithm.c_str());
        out << line << outOfPlace.why << "\n";
      }
    }
  }
  return problems;
}

}  // namespace flashccl
