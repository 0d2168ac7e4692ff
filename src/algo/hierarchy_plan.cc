#include "algo/hierarchy_plan.h"

#include <algorithm>

#include "algo/comm_view.h"
#include "algo/launch_common.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

bool hierarchyUsable(const CollCall& call, const CommView& ctx) {
  const Hierarchy* h = ctx.hierarchy();
  return h != nullptr && h->nnodes > 1 && ctx.peers() != nullptr && ctx.peers()->device().nranks == h->localRanks &&
         call.count > 0 && dtypeSize(call.dtype) != 0;
}

int hierarchyLanes(const DeviceComm& comm) { return std::max(1, chunkedBlockBudget(comm) / 4); }

size_t allreduceShardBytes(size_t count, size_t elementBytes, int localRanks) {
  const size_t perRank = (count + localRanks - 1) / localRanks * elementBytes;
  return (perRank + kHierAlign - 1) / kHierAlign * kHierAlign;
}

}  // namespace flashccl
