#include "runtime/peer_setup.h"

#include <cstdio>
#include <cstring>

#include <cuda_runtime_api.h>
#include <memory>

#include "base/check.h"
#include "base/config.h"
#include "base/log.h"
#include "runtime/comm_context.h"
#include "runtime/setup_clock.h"
#include "runtime/setup_exchange.h"
#include "runtime/table_agreement.h"
#include "trace/watchdog.h"
#include "select/selector.h"
#include "transport/p2p/growth_board.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

namespace {

// What one rank publishes in the first round: its memory, and everything that decides which
// kernel runs a call or how the buffers are laid out. Ranks must agree on all of it: a rank's own
// environment never routes a call differently from its peers.
struct SetupRecord {
  PeerRecord peer;
  TraceEndpoint trace;   // where this rank's fault locator answers (src/trace)
  uint64_t fingerprint;  // the selector's: table rows, FLASHCCL_ALGO, the XML programs named
  TableIdentity table;   // which table the rows came from (runtime/table_agreement.h)
  int32_t disabled;      // FLASHCCL_DISABLE
  int32_t lanes;         // FLASHCCL_LANES
  uint64_t minChunkBytes;  // FLASHCCL_MIN_CHUNK_BYTES
  uint64_t llMaxBytes;     // FLASHCCL_LL_MAX_BYTES
  uint64_t bufferBytes;    // FLASHCCL_BUFFER_BYTES
  uint64_t smallCallBytes; // FLASHCCL_SMALL_CALL_BYTES
  char boardName[48];      // rank 0's is the growth board of a communicator that starts small
};

SetupRecord agreementOf(const Config& config) {
  SetupRecord rec;
  // Every byte, padding too: the record travels as bytes to ranks that may hash or dump it.
  std::memset(static_cast<void*>(&rec), 0, sizeof(rec));
  rec.disabled = config.disable ? 1 : 0;
  rec.lanes = config.lanes;
  rec.minChunkBytes = config.minChunkBytes;
  rec.llMaxBytes = config.llMaxBytes;
  rec.bufferBytes = config.bufferBytes;
  rec.smallCallBytes = config.smallCallBytes;
  return rec;
}

// "FLASHCCL_LANES is 32 on rank 1 but 64 on rank 0": the same words on every rank.
template <typename T>
std::string differs(const char* variable, T theirs, int rank, T first) {
  return std::string(variable) + " is " + std::to_string(theirs) + " on rank " + std::to_string(rank) + " but " +
         std::to_string(first) + " on rank 0; every rank stays on NCCL for this communicator";
}

// Every rank must run the same selection with the same layout: different choices on different
// ranks would pair different kernels. Compared with rank 0, so every rank says the same.
std::string compareAgreements(const std::vector<char>& all, int nranks) {
  const SetupRecord* recs = reinterpret_cast<const SetupRecord*>(all.data());
  const SetupRecord& first = recs[0];
  for (int r = 1; r < nranks; ++r) {
    const SetupRecord& rec = recs[r];
    if (rec.disabled != first.disabled) return differs("FLASHCCL_DISABLE", rec.disabled, r, first.disabled);
    if (rec.disabled) continue;
    if (rec.bufferBytes != first.bufferBytes) {
      return differs("FLASHCCL_BUFFER_BYTES", rec.bufferBytes, r, first.bufferBytes);
    }
    if (rec.smallCallBytes != first.smallCallBytes) {
      return differs("FLASHCCL_SMALL_CALL_BYTES", rec.smallCallBytes, r, first.smallCallBytes);
    }
    if (rec.lanes != first.lanes) return differs("FLASHCCL_LANES", rec.lanes, r, first.lanes);
    if (rec.minChunkBytes != first.minChunkBytes) {
      return differs("FLASHCCL_MIN_CHUNK_BYTES", rec.minChunkBytes, r, first.minChunkBytes);
    }
    if (rec.llMaxBytes != first.llMaxBytes) return differs("FLASHCCL_LL_MAX_BYTES", rec.llMaxBytes, r, first.llMaxBytes);
    const std::string tables = tableDisagreement(r, rec.table, first.table);
    if (!tables.empty()) return tables;
    if (rec.fingerprint != first.fingerprint) {
      return "rank " + std::to_string(r) + " selects algorithms differently from rank 0 (FLASHCCL_ALGO, "
             "FLASHCCL_ALGO_DIR, FLASHCCL_TOPO_FILE or the topology tables differ); every rank stays on NCCL "
             "for this communicator";
    }
  }
  return first.disabled ? "FLASHCCL_DISABLE is set" : "";
}

// The ranks whose buffers this rank maps: its node's (every rank, on a one-node communicator).
const std::vector<int>& nodeRanksOf(const CommContext& ctx) { return ctx.nodes.ranksOfNode[ctx.nodes.nodeOf[ctx.rank]]; }

// Maps the node's peers from the first round's records; "" or why not.
std::string mapFromRecords(PeerMemory* memory, const std::vector<char>& all, const std::vector<int>& nodeRanks) {
  const SetupRecord* recs = reinterpret_cast<const SetupRecord*>(all.data());
  std::vector<PeerRecord> peers(nodeRanks.size());
  for (size_t j = 0; j < nodeRanks.size(); ++j) peers[j] = recs[nodeRanks[j]].peer;
  memory->setWorldRanks(nodeRanks);
  return memory->mapPeers(peers.data());
}

// Why this rank's communicator maps its full buffer at set-up instead of starting small
// (docs/design.md, "Memory grows with use"), or "" when it may start small. `threadRanks`: the
// communicators this thread sets up together; it may be driving several ranks of one, and a
// rank that waits on the growth board for a peer its own thread drives would wait for ever.
std::string whyFullAtSetUp(const CommContext& ctx, const Config& config, size_t threadRanks, const BufferLayout& full,
                           BufferLayout* small) {
  if (config.smallCallBytes == 0) return "FLASHCCL_SMALL_CALL_BYTES=0";
  if (ctx.nodes.nnodes > 1) return "the communicator spans nodes";
  if (threadRanks > 1) return "one thread sets up several ranks";
  if (ctx.selector() && ctx.selector()->needsFullBufferAtSetUp()) return "an MSCCL program is selected";
  const char* why = nullptr;
  if (!computeSmallLayout(full, ctx.nranks, config.smallCallBytes, small, &why)) return why;
  return "";
}

ncclResult_t setUpPeerMemoryOnDevices(const std::vector<CommContext*>& ctxs, std::string* verdict) {
  const size_t count = ctxs.size();
  const Config& config = Config::get();
  // 0. Small or full from the start: the same on every rank (any rank's reason makes it full).
  std::vector<BufferLayout> fullLayouts(count), smallLayouts(count);
  std::vector<std::string> fullBecause(count);
  for (size_t i = 0; i < count; ++i) {
    const int localRanks = static_cast<int>(nodeRanksOf(*ctxs[i]).size());
    const char* why = nullptr;
    if (config.disable) continue;
    if (!computeBufferLayout(peerLayoutRequest(config, localRanks), &fullLayouts[i], &why)) {
      fullBecause[i] = why;  // allocate() says it again, as the set-up's verdict
      continue;
    }
    fullBecause[i] = whyFullAtSetUp(*ctxs[i], config, count, fullLayouts[i], &smallLayouts[i]);
  }
  std::vector<std::string> startsFull;
  FCCL_CHECK(agreeOnFailures(ctxs, fullBecause, &startsFull));
  markSetupStep("layout agreement");

  std::vector<std::unique_ptr<PeerMemory>> made(count);
  std::vector<SetupRecord> records(count);
  std::vector<const void*> mine(count);
  std::vector<std::string> failures(count);
  for (size_t i = 0; i < count; ++i) {
    CommContext& ctx = *ctxs[i];
    records[i] = agreementOf(config);
    records[i].trace = ctx.trace ? traceEndpointForNewComm(ctx.cudaDev) : endpointWithoutChannel(ctx.cudaDev);
    mine[i] = &records[i];
    markSetupStep("side channel");
    // A disabled rank allocates nothing but still takes part, so its peers fall back with it.
    if (config.disable) continue;
    // Peer memory spans this rank's node: the whole communicator on one node, else this rank's node.
    const int localRanks = static_cast<int>(nodeRanksOf(ctx).size());
    const int localRank = ctx.nodes.localRankOf[ctx.rank];
    if (startsFull[i].empty()) {
      made[i] = PeerMemory::allocate(localRank, localRanks, ctx.cudaDev, smallLayouts[i], config.bufferBytes,
                                     &records[i].peer);
      std::snprintf(records[i].boardName, sizeof(records[i].boardName), "%s", GrowthBoard::newName().c_str());
    } else {
      made[i] = PeerMemory::allocate(localRank, localRanks, ctx.cudaDev, peerLayoutRequest(config, localRanks),
                                     &records[i].peer);
    }
    markSetupStep("allocation");
    records[i].fingerprint = ctx.selector() ? ctx.selector()->fingerprint() : 0;
    records[i].table = tableIdentityOf(ctx.selector());
    // Algorithms allocate what their launches need (MSCCL images, scratch) on the comm's device.
    // A failure is recorded, not returned: the rank still takes part in the exchanges.
    std::string notPrepared;
    if (made[i] && ctx.selector() && cudaSetDevice(ctx.cudaDev) == cudaSuccess &&
        !ctx.selector()->prepareAlgorithms(ctx, &notPrepared)) {
      std::snprintf(records[i].peer.failure, sizeof(records[i].peer.failure), "preparing algorithms: %s",
                    notPrepared.c_str());
      records[i].peer.ok = 0;
    }
    markSetupStep("preparing algorithms");
  }

  // 1. Everyone's buffer handles and agreements; map the peers', write the P2P check.
  std::vector<std::vector<char>> all;
  FCCL_CHECK(exchangeRecords(ctxs, sizeof(SetupRecord), mine, &all));
  markSetupStep("record exchange");
  std::vector<std::vector<TraceEndpoint>> endpoints(count);
  std::vector<std::unique_ptr<GrowthBoard>> boards(count);
  std::vector<std::string> boardNames(count);
  // Unlinked on the way out, when every rank has opened its board (or the set-up failed for all).
  struct UnlinkBoards {
    const std::vector<std::string>& names;
    ~UnlinkBoards() {
      for (const std::string& name : names) {
        if (!name.empty()) GrowthBoard::unlink(name);
      }
    }
  } unlinkBoards{boardNames};
  for (size_t i = 0; i < count; ++i) {
    const int nranks = ctxs[i]->nranks;
    const SetupRecord* recs = reinterpret_cast<const SetupRecord*>(all[i].data());
    for (int r = 0; r < nranks; ++r) endpoints[i].push_back(recs[r].trace);
    failures[i] = compareAgreements(all[i], nranks);
    if (failures[i].empty()) {
      for (int r = 0; r < nranks && failures[i].empty(); ++r) {
        if (!recs[r].peer.ok) failures[i] = "rank " + std::to_string(r) + ": " + recs[r].peer.failure;
      }
    }
    markSetupStep("agreement");
    if (failures[i].empty()) failures[i] = mapFromRecords(made[i].get(), all[i], nodeRanksOf(*ctxs[i]));
    markSetupStep("mapping peers");
    if (failures[i].empty()) failures[i] = made[i]->writeP2pCheck();
    markSetupStep("P2P check");
    if (failures[i].empty() && startsFull[i].empty()) {
      boardNames[i] = std::string(recs[0].boardName, strnlen(recs[0].boardName, sizeof(recs[0].boardName)));
      boards[i] = GrowthBoard::open(boardNames[i], nranks, &failures[i]);
    }
    markSetupStep("growth board");
  }

  // 2. Barrier (everyone has written), then check what arrived.
  std::vector<std::string> agreed;
  FCCL_CHECK(agreeOnFailures(ctxs, failures, &agreed));
  markSetupStep("barrier");
  for (size_t i = 0; i < count; ++i) {
    failures[i] = agreed[i];
    if (failures[i].empty() && config.p2pCheck) failures[i] = made[i]->verifyP2pCheck();
  }
  markSetupStep("P2P check");

  // 3. Everyone's verdict: all ranks of a communicator attach, or none does.
  FCCL_CHECK(agreeOnFailures(ctxs, failures, &agreed));
  markSetupStep("verdict");
  verdict->clear();
  for (size_t i = 0; i < count; ++i) {
    const std::string& failure = agreed[i];
    if (failure.empty()) {
      const DeviceComm& dc = made[i]->device();
      FCCL_INFO(kLogInit | kLogP2p,
                "comm %p rank %d/%d: peer buffer %zu KiB (LL %zu KiB per peer, %d lanes x %d slots x %zu KiB)%s%s",
                (void*)ctxs[i]->comm, ctxs[i]->rank, ctxs[i]->nranks, dc.bufferBytes >> 10, dc.layout.llSlotBytes >> 10,
                dc.layout.lanes, dc.layout.slots, dc.layout.chunkBytes >> 10,
                boards[i] ? "; the full buffer is mapped at the first call above FLASHCCL_SMALL_CALL_BYTES" : ", full: ",
                boards[i] ? "" : startsFull[i].c_str());
      if (boards[i]) {
        ctxs[i]->buffer.startSmall(config.smallCallBytes, fullLayouts[i], std::move(boards[i]),
                                   ctxs[i]->nodes.localRankOf[ctxs[i]->rank]);
      }
      ctxs[i]->attachPeers(std::move(made[i]));
    } else if (verdict->empty()) {
      *verdict = failure;
    }
    // Watched whatever the verdict: a communicator left on NCCL can hang too.
    if (ctxs[i]->trace) ctxs[i]->trace->watch(std::move(endpoints[i]));
  }
  markSetupStep("attaching");
  return ncclSuccess;
}

}  // namespace

ncclResult_t setUpPeerMemory(const std::vector<CommContext*>& ctxs, std::string* verdict) {
  int savedDevice = 0;
  cudaGetDevice(&savedDevice);
  const ncclResult_t result = setUpPeerMemoryOnDevices(ctxs, verdict);
  cudaSetDevice(savedDevice);
  return result;
}

}  // namespace flashccl
