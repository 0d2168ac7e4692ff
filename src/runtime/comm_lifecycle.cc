#include "runtime/comm_lifecycle.h"

#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/comm_context.h"
#include "runtime/comm_setup.h"
#include "runtime/comm_table.h"
#include "runtime/setup_clock.h"
#include "base/config.h"
#include "base/thread_state.h"
#include "base/log.h"
#include "base/real_nccl.h"
#include "base/result_string.h"

namespace flashccl {

bool isBlockingConfig(const ncclConfig_t* config, const CommContext* parent) {
  // NCCL applies NCCL_COMM_BLOCKING over the config's value.
  const char* env = getEnv("NCCL_COMM_BLOCKING");
  if (env && (std::strcmp(env, "0") == 0 || std::strcmp(env, "1") == 0)) return env[0] == '1';
  // A config compiled against an older nccl.h is shorter: read nothing past its size.
  if (config != nullptr && config->size >= offsetof(ncclConfig_t, blocking) + sizeof(int)) {
    return config->blocking == INT_MIN || config->blocking != 0;
  }
  if (parent != nullptr) return parent->blocking;
  return true;
}

ncclResult_t onCommunicatorsCreated(const std::vector<ncclComm_t>& comms, bool blocking,
                                    ncclResult_t result) {
  if (result != ncclSuccess && result != ncclInProgress) return ncclSuccess;
  adoptNcclLogFile();  // NCCL may have opened NCCL_DEBUG_FILE now (a non-blocking init: maybe later)
  if (result == ncclInProgress) blocking = false;  // whatever the config said

  std::vector<CommContext*> created;
  for (ncclComm_t comm : comms) {
    if (comm == nullptr) continue;  // e.g. ncclCommSplit with NCCL_SPLIT_NOCOLOR
    auto ctx = std::make_unique<CommContext>(comm, -1, 0, -1, blocking);
    created.push_back(ctx.get());
    CommTable::instance().insert(std::move(ctx));
  }
  if (created.empty()) return ncclSuccess;

  ThreadState& thread = threadState();
  if (thread.groupDepth > 0) {
    for (CommContext* ctx : created) thread.createdInGroup.push_back(ctx->comm);
    FCCL_INFO(kLogInit, "%zu communicator(s) created inside a group: set-up at ncclGroupEnd",
              created.size());
    return ncclSuccess;
  }
  if (result == ncclInProgress) {
    FCCL_INFO(kLogInit, "%zu non-blocking communicator(s) in progress: set-up at their first collective",
              created.size());
    return ncclSuccess;
  }
  return activateCommunicators(created, /*waitForNccl=*/false);
}

ncclResult_t onOutermostGroupEnd(ncclResult_t result) {
  ThreadState& thread = threadState();
  std::vector<ncclComm_t> comms;
  comms.swap(thread.createdInGroup);
  if (comms.empty() || (result != ncclSuccess && result != ncclInProgress)) return ncclSuccess;  // stay Pending
  std::vector<CommContext*> ctxs;
  for (ncclComm_t comm : comms) {
    if (CommContext* ctx = CommTable::instance().find(comm)) ctxs.push_back(ctx);
  }
  return activateCommunicators(ctxs, /*waitForNccl=*/true);
}

ncclResult_t activateCommunicators(const std::vector<CommContext*>& ctxs, bool waitForNccl) {
  const RealNccl* real = realNccl();
  if (real == nullptr) return ncclSuccess;
  adoptNcclLogFile();  // a non-blocking init may have opened NCCL_DEBUG_FILE since creation
  SetupClock clock;
  std::vector<CommContext*> ready;
  for (CommContext* ctx : ctxs) {
    if (ctx->state() != CommContext::State::kPending) continue;
    if (!real->ncclCommGetAsyncError || !real->ncclCommCount || !real->ncclCommUserRank ||
        !real->ncclCommCuDevice) {
      ctx->disable("the real NCCL lacks ncclCommGetAsyncError/Count/UserRank/CuDevice");
      continue;
    }
    ncclResult_t async = ncclSuccess, res;
    int rank = -1, nranks = 0, dev = -1;
    while (true) {
      {
        ForwardScope scope;
        res = real->ncclCommGetAsyncError(ctx->comm, &async);
      }
      if (res != ncclSuccess || async != ncclInProgress || !waitForNccl) break;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (res == ncclSuccess && async == ncclInProgress) continue;  // not ready yet: later
    if (res != ncclSuccess || async != ncclSuccess) {
      ctx->disable(std::string("the communicator reports an error: ") +
                   resultString(res != ncclSuccess ? res : async));
      continue;
    }
    {
      ForwardScope scope;
      res = real->ncclCommCount(ctx->comm, &nranks);
      if (res == ncclSuccess) res = real->ncclCommUserRank(ctx->comm, &rank);
      if (res == ncclSuccess) res = real->ncclCommCuDevice(ctx->comm, &dev);
    }
    if (res != ncclSuccess) {
      ctx->disable(std::string("cannot read rank/size/device from NCCL: ") + resultString(res));
      continue;
    }
    ctx->setIdentity(rank, nranks, dev);
    // The flight recorder from the first call flashccl may run on (FLASHCCL_TRACE=0: none).
    markSetupStep("NCCL's init");
    if (!ctx->trace && !Config::get().disable) ctx->trace = CommTrace::make(*ctx);
    markSetupStep("flight recorder");
    ready.push_back(ctx);
  }
  if (ready.empty()) return ncclSuccess;
  ncclResult_t result = setUpCommunicators(ready);
  const std::string took = clock.summary();
  for (CommContext* ctx : ready) {
    CommContext::State state = ctx->state();
    FCCL_INFO(kLogInit, "comm %p rank %d/%d cudaDev %d: flashccl %s%s%s; set-up %s",
              static_cast<void*>(ctx->comm), ctx->rank, ctx->nranks, ctx->cudaDev,
              state == CommContext::State::kReady      ? "ready"
              : state == CommContext::State::kDisabled ? "disabled"
                                                        : "pending",
              state == CommContext::State::kDisabled ? ": " : "",
              state == CommContext::State::kDisabled ? ctx->disabledReason().c_str() : "", took.c_str());
  }
  return result;
}

}  // namespace flashccl
