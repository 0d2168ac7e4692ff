// flashccl's own C API (include/flashccl/flashccl.h): what tools need to look inside.
#include "flashccl/flashccl.h"

#include <cstdint>
#include <cstring>

#include "algo/algorithm.h"
#include "base/coll_call.h"
#include "runtime/comm_context.h"
#include "runtime/comm_table.h"
#include "select/selector.h"
#include "shim/forward.h"

namespace {

using flashccl::CommContext;

const char* const kNccl = "NCCL";

}  // namespace

FLASHCCL_EXPORT const char* flashcclVersion(void) { return FLASHCCL_VERSION_STRING; }

FLASHCCL_EXPORT void* flashcclRealFunction(const char* name) {
  const flashccl::RealNccl* real = flashccl::realNccl();
  if (real == nullptr || name == nullptr) return nullptr;
  if (name[0] == 'p') ++name;  // pncclX is the same function as ncclX
#define FLASHCCL_LOOKUP(fname, params, args) \
  if (std::strcmp(name, #fname) == 0) return reinterpret_cast<void*>(real->fname);
#define FLASHCCL_LOOKUP_OTHER(ret, fname, params, args) FLASHCCL_LOOKUP(fname, params, args)
  NCCL_RESULT_FUNCTIONS(FLASHCCL_LOOKUP)
  NCCL_OTHER_FUNCTIONS(FLASHCCL_LOOKUP_OTHER)
#undef FLASHCCL_LOOKUP_OTHER
#undef FLASHCCL_LOOKUP
  return nullptr;
}

FLASHCCL_EXPORT const char* flashcclRealLibraryPath(void) {
  const flashccl::RealNccl* real = flashccl::realNccl();
  return real ? real->path.c_str() : "";
}

FLASHCCL_EXPORT const char* flashcclLastAlgorithm(ncclComm_t comm) {
  CommContext* ctx = flashccl::CommTable::instance().find(comm);
  return ctx ? ctx->lastAlgorithm.load(std::memory_order_relaxed) : nullptr;
}

FLASHCCL_EXPORT const char* flashcclPlan(ncclComm_t comm, flashcclColl_t coll, size_t count,
                                         ncclDataType_t datatype, ncclRedOp_t op, int inPlace,
                                         const char** why) {
  const char* reason = nullptr;
  const char* choice = kNccl;
  CommContext* ctx = flashccl::CommTable::instance().find(comm);
  if (ctx == nullptr) {
    reason = flashccl::reason::kUnknownComm;
  } else if (count == 0) {
    reason = flashccl::reason::kZeroCount;
  } else if (ctx->state() == CommContext::State::kPending) {
    reason = flashccl::reason::kNotReady;
  } else if (ctx->state() == CommContext::State::kDisabled || ctx->selector() == nullptr) {
    reason = flashccl::reason::kDisabled;
  } else if (coll < flashcclAllReduce || coll > flashcclReduceScatter) {
    reason = "unknown collective";
  } else {
    // Algorithms decide from kind, count, dtype, op and the communicator, never from pointers;
    // placeholder buffers laid out per NCCL's in-place rules stand in for the real ones.
    flashccl::CollCall call{static_cast<flashccl::CollKind>(coll), nullptr, nullptr, count,
                            datatype, coll == flashcclAllGather ? ncclSum : op, 0, comm, nullptr};
    char* base = reinterpret_cast<char*>(uintptr_t{1} << 40);
    const size_t shard = count * flashccl::dtypeSize(datatype) * static_cast<size_t>(ctx->rank);
    const size_t total = flashccl::totalBytes(call, ctx->nranks);
    call.recv = base;
    call.send = base;
    if (call.kind == flashccl::CollKind::kAllGather) call.send = inPlace ? base + shard : base + total;
    if (call.kind == flashccl::CollKind::kReduceScatter) {
      call.recv = inPlace ? base + shard : base + total;
    }
    if (call.kind == flashccl::CollKind::kAllReduce && !inPlace) call.send = base + total;
    flashccl::Plan plan = ctx->selector()->choose(call, *ctx);
    reason = plan.reason;
    if (plan.algorithm != nullptr) choice = plan.algorithm->name();
  }
  if (why != nullptr) *why = reason;
  return choice;
}

FLASHCCL_EXPORT int flashcclCommState(ncclComm_t comm, const char** reason) {
  CommContext* ctx = flashccl::CommTable::instance().find(comm);
  if (reason != nullptr) *reason = nullptr;
  if (ctx == nullptr) return -2;
  switch (ctx->state()) {
    case CommContext::State::kReady: return 1;
    case CommContext::State::kPending: return 0;
    case CommContext::State::kDisabled:
      if (reason != nullptr) *reason = ctx->disabledReason().c_str();
      return -1;
  }
  return -2;
}
