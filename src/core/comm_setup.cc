#include "core/comm_setup.h"

#include "core/comm_context.h"
#include "core/config.h"
#include "core/log.h"
#include "select/algorithm_resolver.h"
#include "select/builtin_table.h"
#include "select/selector.h"

namespace flashccl {

ncclResult_t setUpCommunicators(const std::vector<CommContext*>& ctxs) {
  for (CommContext* ctx : ctxs) {
    std::string warnings;
    std::unique_ptr<Selector> selector =
        Selector::build(builtinSelectionTable(), Config::get().algo, ctx->nranks, /*nnodes=*/1,
                        resolveAlgorithm, &warnings);
    if (!warnings.empty()) FCCL_WARN("selection: %s", warnings.c_str());
    ctx->attachSelector(std::move(selector));
    ctx->markReady();
  }
  return ncclSuccess;
}

}  // namespace flashccl
