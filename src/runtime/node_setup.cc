#include "runtime/node_setup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "base/check.h"
#include "base/config.h"
#include "base/log.h"
#include "runtime/comm_context.h"
#include "runtime/setup_exchange.h"
#include "topo/host_identity.h"

namespace flashccl {

namespace {

struct NodeRecord {
  uint64_t node;         // topo/host_identity.h
  uint64_t sharedMemory; // which /dev/shm, as which user: ranks with the same one can share a board
  char board[48];        // rank 0's set-up board ("" when it has none)
};

// The same on two processes exactly when one's shm objects are the other's and it may open them.
uint64_t sharedMemoryIdentity() {
  struct stat st;
  if (stat("/dev/shm", &st) != 0) return 0;
  const uint64_t where = (static_cast<uint64_t>(st.st_dev) << 32) ^ static_cast<uint64_t>(st.st_ino);
  return (where * 0x9E3779B97F4A7C15ull) ^ static_cast<uint64_t>(geteuid());
}

// Rank 0's board, made before the round that names it (kept aside: that round is NCCL's).
std::unique_ptr<NodeBoard> makeBoardOnRankZero(const CommContext& ctx, NodeRecord* record) {
  if (ctx.rank != 0 || record->sharedMemory == 0) return nullptr;
  const std::string name = NodeBoard::newName();
  std::string why;
  std::unique_ptr<NodeBoard> board = NodeBoard::open(name, ctx.nranks, /*create=*/true, &why);
  if (board) std::snprintf(record->board, sizeof(record->board), "%s", name.c_str());
  return board;  // without one, the rounds stay on NCCL
}

// After the round: every rank of a one-node communicator that shares rank 0's /dev/shm opens its
// board, or nobody uses one (the same decision on every rank, from the same records).
void joinBoard(CommContext* ctx, const NodeRecord* records, std::unique_ptr<NodeBoard> made) {
  const std::string name(records[0].board, strnlen(records[0].board, sizeof(records[0].board)));
  bool usable = ctx->nodes.nnodes == 1 && name.size() > 1 && name[0] == '/' && records[0].sharedMemory != 0;
  for (int r = 1; r < ctx->nranks && usable; ++r) usable = records[r].sharedMemory == records[0].sharedMemory;
  if (ctx->rank == 0) {
    if (made && usable) {
      ctx->setupBoard = std::move(made);
      ctx->setupBoardName = name;
    } else if (made) {
      NodeBoard::unlink(name);
    }
    return;
  }
  if (!usable) return;
  std::string why;
  ctx->setupBoard = NodeBoard::open(name, ctx->nranks, /*create=*/false, &why);
  // Cannot happen for a rank that shares /dev/shm as the same user short of running out of
  // resources; its peers then wait out the set-up timeout and every rank stays on NCCL.
  if (!ctx->setupBoard) {
    ctx->setupBoardUnreachable = true;
    FCCL_WARN("comm %p rank %d: %s; this communicator stays on NCCL", (void*)ctx->comm, ctx->rank, why.c_str());
  }
}

}  // namespace

ncclResult_t exchangeNodes(const std::vector<CommContext*>& ctxs) {
  std::vector<NodeRecord> records(ctxs.size());
  std::vector<std::unique_ptr<NodeBoard>> made(ctxs.size());
  std::vector<const void*> mine(ctxs.size());
  const uint64_t node = nodeIdentity(Config::get().nodeId);
  const uint64_t sharedMemory = sharedMemoryIdentity();
  for (size_t i = 0; i < ctxs.size(); ++i) {
    std::memset(&records[i], 0, sizeof(NodeRecord));
    records[i].node = node;
    records[i].sharedMemory = sharedMemory;
    made[i] = makeBoardOnRankZero(*ctxs[i], &records[i]);
    mine[i] = &records[i];
  }
  std::vector<std::vector<char>> all;
  const ncclResult_t exchanged = exchangeRecords(ctxs, sizeof(NodeRecord), mine, &all);
  for (size_t i = 0; i < ctxs.size(); ++i) {
    if (exchanged != ncclSuccess) {
      if (made[i]) NodeBoard::unlink(std::string(records[i].board));
      continue;
    }
    const NodeRecord* recs = reinterpret_cast<const NodeRecord*>(all[i].data());
    std::vector<uint64_t> keys(ctxs[i]->nranks);
    for (int r = 0; r < ctxs[i]->nranks; ++r) keys[r] = recs[r].node;
    ctxs[i]->nodes = groupRanksByNode(keys);
    joinBoard(ctxs[i], recs, std::move(made[i]));
  }
  return exchanged;
}

void closeSetupBoards(const std::vector<CommContext*>& ctxs) {
  for (CommContext* ctx : ctxs) {
    ctx->setupBoard.reset();
    if (!ctx->setupBoardName.empty()) NodeBoard::unlink(ctx->setupBoardName);
    ctx->setupBoardName.clear();
    ctx->setupRound = 0;
    ctx->setupBoardUnreachable = false;
  }
}

}  // namespace flashccl
