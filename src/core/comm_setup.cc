#include "core/comm_setup.h"

#include "core/comm_context.h"
#include "core/config.h"
#include "core/log.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"
#include "topo/machine_table.h"

namespace flashccl {

ncclResult_t setUpCommunicators(const std::vector<CommContext*>& ctxs) {
  for (CommContext* ctx : ctxs) {
    std::string warnings;
    // This machine's table (topologies/*.xml, else built-in; which one is logged at INFO).
    // nnodes stays 1 until multi-node set-up knows the node count.
    std::unique_ptr<Selector> selector =
        Selector::build(selectionTableForThisMachine(ctx->nranks, nullptr), Config::get().algo,
                        ctx->nranks, /*nnodes=*/1, resolveAlgorithm, &warnings);
    if (!warnings.empty()) FCCL_WARN("selection: %s", warnings.c_str());
    ctx->attachSelector(std::move(selector));
    ctx->markReady();
  }
  return ncclSuccess;
}

}  // namespace flashccl
