#include "runtime/rail_setup.h"

#include <memory>

#include <cuda_runtime_api.h>

#include "base/check.h"
#include "base/config.h"
#include "base/log.h"
#include "base/real_nccl.h"
#include "base/result_string.h"
#include "base/thread_state.h"
#include "runtime/comm_context.h"
#include "runtime/node_rails.h"
#include "runtime/setup_exchange.h"
#include "topo/node_grouping.h"

namespace flashccl {

namespace {

NodeLayout layoutOf(const CommContext& ctx) {
  const NodeGrouping& nodes = ctx.nodes;
  NodeLayout h;
  h.nnodes = nodes.nnodes;
  h.localRanks = nodes.ranksPerNode();
  h.node = nodes.nodeOf[ctx.rank];
  h.localRank = nodes.localRankOf[ctx.rank];
  h.worldRank = ctx.rank;
  h.nodeMajor = nodes.nodeMajor();
  return h;
}

// One NCCL group of splits, one per context; rails[i] stays null where NCCL made none.
ncclResult_t splitRails(const std::vector<CommContext*>& ctxs, std::vector<ncclComm_t>* rails) {
  const RealNccl* real = realNccl();
  if (real == nullptr || real->ncclCommSplit == nullptr) return missingRealFunction("ncclCommSplit");
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  config.maxCTAs = kRailMaxCtas;
  config.commName = "flashccl-rail";
  rails->assign(ctxs.size(), nullptr);
  auto fine = [](ncclResult_t r) { return r == ncclSuccess || r == ncclInProgress; };
  ncclResult_t result;
  {
    ForwardScope scope;
    result = real->ncclGroupStart();
    for (size_t i = 0; i < ctxs.size() && fine(result); ++i) {
      const RailPlan plan = railPlanFor(ctxs[i]->nodes, ctxs[i]->rank);
      cudaSetDevice(ctxs[i]->cudaDev);
      result = real->ncclCommSplit(ctxs[i]->comm, plan.color, plan.key, &(*rails)[i], &config);
    }
    const ncclResult_t end = real->ncclGroupEnd();
    if (fine(result)) result = end;
  }
  // A non-blocking parent finishes the split in the background: its state says when.
  if (result == ncclInProgress) {
    result = ncclSuccess;
    for (CommContext* ctx : ctxs) {
      const ncclResult_t state = waitWhileInProgress(ctx->comm);
      if (result == ncclSuccess) result = state;
    }
  }
  return result;
}

}  // namespace

ncclResult_t setUpRails(const std::vector<CommContext*>& ctxs, std::vector<std::string>* failures) {
  const size_t count = ctxs.size();
  failures->assign(count, "");
  if (count == 0) return ncclSuccess;
  int savedDevice = 0;
  cudaGetDevice(&savedDevice);
  std::vector<std::unique_ptr<NodeRails>> made(count);
  std::vector<std::string> mine(count);
  for (size_t i = 0; i < count; ++i) {
    made[i] = NodeRails::allocate(layoutOf(*ctxs[i]), ctxs[i]->cudaDev, Config::get().bufferBytes, &mine[i]);
  }
  std::vector<ncclComm_t> rails;
  const ncclResult_t split = splitRails(ctxs, &rails);
  for (size_t i = 0; i < count; ++i) {
    if (!mine[i].empty()) continue;
    if (split != ncclSuccess) {
      mine[i] = std::string("ncclCommSplit for the rails failed: ") + resultString(split);
    } else if (rails[i] == nullptr) {
      mine[i] = "ncclCommSplit made no rail";
    } else if (const ncclResult_t state = waitWhileInProgress(rails[i]); state != ncclSuccess) {
      mine[i] = std::string("the rail reports an error: ") + resultString(state);
    }
  }
  const ncclResult_t agreement = agreeOnFailures(ctxs, mine, failures);
  for (size_t i = 0; i < count; ++i) {
    if (agreement == ncclSuccess && (*failures)[i].empty()) {
      made[i]->adoptRail(rails[i]);
      const Hierarchy& h = made[i]->view();
      FCCL_INFO(kLogInit, "comm %p rank %d/%d: %d nodes x %d ranks, node %d, rail %d (NCCL comm %p)",
                (void*)ctxs[i]->comm, ctxs[i]->rank, ctxs[i]->nranks, h.nnodes, h.localRanks, h.node, h.localRank,
                (void*)h.rail);
      ctxs[i]->attachRails(std::move(made[i]));
      continue;
    }
    // No hierarchy on this communicator: a rail that was made goes at once (aborted: its peers
    // may not have one to finish with).
    if (rails.size() > i && rails[i] != nullptr) {
      if (made[i]) {
        made[i]->adoptRail(rails[i]);
        made[i]->abortRail();
      } else if (realNccl()->ncclCommAbort != nullptr) {
        ForwardScope scope;
        realNccl()->ncclCommAbort(rails[i]);
      }
    }
    if ((*failures)[i].empty()) (*failures)[i] = "the rails' agreement failed in NCCL";
  }
  cudaSetDevice(savedDevice);
  return agreement;
}

}  // namespace flashccl
