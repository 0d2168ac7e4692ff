#include "runtime/node_setup.h"

#include <cstdint>
#include <cstring>

#include "base/check.h"
#include "base/config.h"
#include "runtime/comm_context.h"
#include "runtime/setup_exchange.h"
#include "topo/host_identity.h"

namespace flashccl {

ncclResult_t exchangeNodes(const std::vector<CommContext*>& ctxs) {
  const uint64_t key = nodeIdentity(Config::get().nodeId);
  std::vector<const void*> mine(ctxs.size(), &key);
  std::vector<std::vector<char>> all;
  FCCL_CHECK(exchangeRecords(ctxs, sizeof(key), mine, &all));
  for (size_t i = 0; i < ctxs.size(); ++i) {
    std::vector<uint64_t> keys(ctxs[i]->nranks);
    std::memcpy(keys.data(), all[i].data(), keys.size() * sizeof(uint64_t));
    ctxs[i]->nodes = groupRanksByNode(keys);
  }
  return ncclSuccess;
}

}  // namespace flashccl
