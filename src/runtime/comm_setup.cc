#include "runtime/comm_setup.h"

#include <mutex>

#include "base/config.h"
#include "base/log.h"
#include "runtime/comm_context.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"
#include "topo/machine_table.h"
#include "transport/p2p/device_comm.h"
#include "runtime/node_setup.h"
#include "runtime/peer_setup.h"
#include "runtime/rail_setup.h"
#include "runtime/setup_clock.h"

namespace flashccl {

namespace {

// Which node each rank is on, and whether our kernels can run there at all. Every rank groups the
// same published identities, so every rank disables the same communicators here, with the same
// words. Returns the contexts that go on to the peer memory rounds.
std::vector<CommContext*> groupNodes(const std::vector<CommContext*>& ctxs) {
  std::vector<CommContext*> armable;
  const ncclResult_t exchanged = exchangeNodes(ctxs);
  for (CommContext* ctx : ctxs) {
    if (exchanged != ncclSuccess) {
      ctx->disable("set-up exchange through NCCL failed (error " + std::to_string(exchanged) + ")");
      continue;
    }
    const std::string why = whyNodesCannotArm(ctx->nodes, kMaxPeerRanks);
    if (!why.empty()) {
      // One rank per node is a layout, not a fault: nothing to warn about.
      ctx->disable(why, /*expected=*/ctx->nodes.nnodes > 1 && ctx->nodes.ranksPerNode() == 1);
      continue;
    }
    armable.push_back(ctx);
  }
  return armable;
}

void markArmed(CommContext* ctx) {
  ctx->markReady();
  const std::string nodes = ctx->nodes.nnodes > 1 ? ", " + std::to_string(ctx->nodes.nnodes) + " nodes x " +
                                                        std::to_string(ctx->nodes.ranksPerNode()) + " ranks"
                                                  : "";
  FCCL_INFO(kLogInit, "comm %p rank %d/%d on device %d%s: armed\n%s", (void*)ctx->comm, ctx->rank, ctx->nranks,
            ctx->cudaDev, nodes.c_str(), ctx->selector()->describe().c_str());
}

}  // namespace

ncclResult_t setUpCommunicators(const std::vector<CommContext*>& ctxs) {
  const Config& config = Config::get();
  std::vector<CommContext*> exchanging;
  for (CommContext* ctx : ctxs) {
    if (ctx->nranks < 2) {
      ctx->disable("the NVLink path serves 2 to 8 ranks on a node; this communicator has " + std::to_string(ctx->nranks));
      continue;
    }
    // FLASHCCL_DISABLE is a rank's own environment: a disabled rank still takes part in every
    // exchange, so its peers learn of it there and fall back too instead of waiting for it.
    exchanging.push_back(ctx);
  }
  if (exchanging.empty()) return ncclSuccess;
  // The node boards the first round opens serve the rounds of this set-up only.
  struct CloseBoards {
    const std::vector<CommContext*>& ctxs;
    ~CloseBoards() { closeSetupBoards(ctxs); }
  } closeBoards{exchanging};

  std::vector<CommContext*> withPeers = groupNodes(exchanging);
  markSetupStep("nodes");
  if (withPeers.empty()) return ncclSuccess;
  for (CommContext* ctx : withPeers) {
    if (config.disable) continue;
    std::string warnings;
    // This machine's table (topologies/*.xml, else built-in; which one is logged at INFO).
    std::unique_ptr<Selector> selector =
        Selector::build(selectionTableForThisMachine(ctx->nranks, nullptr, ctx->nodes.nnodes), config.algo,
                        ctx->nranks, ctx->nodes.nnodes, resolveAlgorithm, &warnings, config.armUnmeasured);
    if (!warnings.empty()) FCCL_WARN("selection: %s", warnings.c_str());
    if (selector->leftOutUnmeasured()) {
      static std::once_flag said;
      std::call_once(said, [] {
        FCCL_INFO(kLogInit | kLogTune, "selection: rows of this machine's table were not measured on its machine "
                  "class; the calls they cover go to NCCL (FLASHCCL_UNMEASURED=1 arms them)");
      });
    }
    ctx->attachSelector(std::move(selector));
  }
  markSetupStep("selection");

  std::string verdict;
  const ncclResult_t result = setUpPeerMemory(withPeers, &verdict);
  std::vector<CommContext*> needRails;
  for (CommContext* ctx : withPeers) {
    if (result != ncclSuccess) {
      ctx->disable("set-up exchange through NCCL failed (error " + std::to_string(result) + ")");
    } else if (ctx->peers() == nullptr) {
      ctx->disable(verdict.empty() ? "peer memory set-up failed" : verdict, /*expected=*/config.disable);
    } else if (ctx->nodes.nnodes == 1) {
      markArmed(ctx);
    } else if (!ctx->selector()->spansNodes()) {
      // The selectors agreed (their fingerprints were compared), so every rank says this.
      ctx->disable("no algorithm across nodes is selected for " + std::to_string(ctx->nodes.nnodes) +
                       " nodes (selection rows, FLASHCCL_ALGO)" +
                       (ctx->selector()->leftOutUnmeasured()
                            ? "; rows not measured on this machine class are left out (FLASHCCL_UNMEASURED=1 arms them)"
                            : ""),
                   /*expected=*/true);
    } else {
      needRails.push_back(ctx);
    }
  }

  std::vector<std::string> failures;
  const ncclResult_t rails = setUpRails(needRails, &failures);
  if (!needRails.empty()) markSetupStep("rails");
  for (size_t i = 0; i < needRails.size(); ++i) {
    if (rails == ncclSuccess && failures[i].empty()) {
      markArmed(needRails[i]);
    } else {
      needRails[i]->disable(failures[i].empty() ? "rail set-up failed" : failures[i]);
    }
  }
  // Set-up trouble never fails the application's init: the calls go to NCCL instead.
  return ncclSuccess;
}

}  // namespace flashccl
