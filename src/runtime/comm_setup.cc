#include "runtime/comm_setup.h"

#include "runtime/comm_context.h"
#include "base/config.h"
#include "base/log.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"
#include "topo/machine_table.h"
#include "transport/p2p/device_comm.h"
#include "runtime/peer_setup.h"

namespace flashccl {

ncclResult_t setUpCommunicators(const std::vector<CommContext*>& ctxs) {
  const Config& config = Config::get();
  std::vector<CommContext*> withPeers;
  for (CommContext* ctx : ctxs) {
    if (ctx->nranks < 2 || ctx->nranks > kMaxPeerRanks) {
      ctx->disable("the NVLink path serves 2 to 8 ranks; this communicator has " + std::to_string(ctx->nranks));
      continue;
    }
    // FLASHCCL_DISABLE is a rank's own environment: its peers must learn of it in the set-up
    // exchange and fall back too, or they would wait there for it forever.
    if (config.disable) {
      withPeers.push_back(ctx);
      continue;
    }
    std::string warnings;
    // This machine's table (topologies/*.xml, else built-in; which one is logged at INFO).
    // nnodes stays 1 until multi-node set-up knows the node count.
    std::unique_ptr<Selector> selector =
        Selector::build(selectionTableForThisMachine(ctx->nranks, nullptr), config.algo,
                        ctx->nranks, /*nnodes=*/1, resolveAlgorithm, &warnings);
    if (!warnings.empty()) FCCL_WARN("selection: %s", warnings.c_str());
    ctx->attachSelector(std::move(selector));
    withPeers.push_back(ctx);
  }
  if (withPeers.empty()) return ncclSuccess;

  std::string verdict;
  const ncclResult_t result = setUpPeerMemory(withPeers, &verdict);
  for (CommContext* ctx : withPeers) {
    if (result != ncclSuccess) {
      ctx->disable("set-up exchange through NCCL failed (error " + std::to_string(result) + ")");
    } else if (ctx->peers() == nullptr) {
      ctx->disable(verdict.empty() ? "peer memory set-up failed" : verdict, /*expected=*/config.disable);
    } else {
      ctx->markReady();
      FCCL_INFO(kLogInit, "comm %p rank %d/%d on device %d: armed\n%s", (void*)ctx->comm, ctx->rank,
                ctx->nranks, ctx->cudaDev, ctx->selector()->describe().c_str());
    }
  }
  // Set-up trouble never fails the application's init: the calls go to NCCL instead.
  return ncclSuccess;
}

}  // namespace flashccl
