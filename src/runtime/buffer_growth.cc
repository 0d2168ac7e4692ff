#include "runtime/buffer_growth.h"

#include <cstdio>
#include <cstring>

#include "base/config.h"
#include "base/log.h"
#include "runtime/comm_context.h"
#include "transport/p2p/growth_board.h"
#include "transport/p2p/memory_account.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

namespace {

// Why a call that needs the full buffer goes to NCCL (CommStats counts them by these pointers).
const char* const kInGroup = "needs the full peer buffer, which grows only outside ncclGroupStart/End";
const char* const kNotNow = "needs the full peer buffer; a rank is capturing a CUDA graph, so it grows at a later call";
const char* const kStaysSmall = "needs the full peer buffer, which a rank could not map (FLASHCCL_MEMORY_LIMIT or "
                                "allocation; INFO at the time says which)";

void setReason(GrowthPost* post, const std::string& why) {
  std::snprintf(post->reason, sizeof(post->reason), "%s", why.c_str());
}

size_t mib(size_t bytes) { return (bytes + (size_t(1) << 20) - 1) >> 20; }

}  // namespace

// The communicator's identity and PreMulSum ops over the described grown memory.
class GrownView final : public CommView {
 public:
  GrownView(CommContext& ctx, PeerMemory* grown) : CommView(ctx.comm, ctx.rank, ctx.nranks, ctx.cudaDev) {
    peers_ = grown;
    hierarchy_ = ctx.hierarchy();
    shareRedOpsOf(ctx);
  }
};

GrowthDecision decideGrowth(const std::vector<int32_t>& votes, const std::vector<std::string>& reasons) {
  GrowthDecision decision;
  decision.grow = !votes.empty();
  int notNow = -1;
  for (size_t r = 0; r < votes.size(); ++r) {
    if (votes[r] == kVoteGrow) continue;
    decision.grow = false;
    if (votes[r] == kVoteNotNow) {
      if (notNow < 0) notNow = static_cast<int>(r);
      continue;
    }
    // Over budget, failed or a vote no rank of this flashccl sends: asking again would not help.
    decision.stopTrying = true;
    decision.why = "rank " + std::to_string(r) + ": " + (r < reasons.size() ? reasons[r] : std::string("no reason"));
    return decision;
  }
  if (notNow >= 0) {
    decision.why = "rank " + std::to_string(notNow) + ": " + (static_cast<size_t>(notNow) < reasons.size() ? reasons[notNow] : "");
  }
  return decision;
}

GrowthVote voteFor(bool capturing, size_t allocated, size_t growthBytes, size_t limit) {
  if (capturing) return kVoteNotNow;
  return withinMemoryLimit(allocated, growthBytes, limit) ? kVoteGrow : kVoteOverBudget;
}

size_t largestBufferBytes(const CollCall& call, int nranks) {
  const size_t bytes = call.count * dtypeSize(call.dtype);
  // AllGather's output and ReduceScatter's input hold every rank's block.
  return call.kind == CollKind::kAllReduce ? bytes : bytes * static_cast<size_t>(nranks > 0 ? nranks : 1);
}

BufferGrowth::BufferGrowth() = default;
BufferGrowth::~BufferGrowth() = default;

const CommView* BufferGrowth::grownView(CommContext* ctx) {
  if (grownView_) return grownView_.get();
  if (ctx->peers() == nullptr) return nullptr;
  grownMemory_ = PeerMemory::describeGrown(ctx->peers()->device(), full_, full_.totalBytes);
  grownView_ = std::make_unique<GrownView>(*ctx, grownMemory_.get());
  return grownView_.get();
}

void BufferGrowth::startSmall(size_t smallCallBytes, const BufferLayout& full, std::unique_ptr<GrowthBoard> board,
                              int localRank) {
  stage_ = Stage::kSmall;
  smallCallBytes_ = smallCallBytes;
  full_ = full;
  board_ = std::move(board);
  localRank_ = localRank;
}

namespace {

// One round: post ours, collect everyone's, decide. False (with *why) when the wait ended early.
bool agreeOnRound(GrowthBoard& board, int localRank, uint64_t round, const GrowthPost& mine, const PeerMemory& memory,
                  std::vector<GrowthPost>* posts, GrowthDecision* decision, std::string* why) {
  board.post(localRank, round, mine);
  const bool collected = board.collect(
      round, posts, [&memory] { return memory.abortRequested(); }, Config::get().hangTimeoutSeconds, why);
  if (!collected) return false;
  std::vector<int32_t> votes;
  std::vector<std::string> reasons;
  for (const GrowthPost& post : *posts) {
    votes.push_back(post.vote);
    reasons.push_back(post.reason);
  }
  *decision = decideGrowth(votes, reasons);
  return true;
}

}  // namespace

const char* BufferGrowth::growForCall(CommContext* ctx, bool inGroup, bool capturing) {
  if (stage_ == Stage::kStaysSmall) return kStaysSmall;
  if (stage_ == Stage::kFull) return nullptr;
  if (inGroup) return kInGroup;
  PeerMemory& memory = *ctx->peers();
  const Config& config = Config::get();
  const size_t held = peerBytesAllocated(ctx->cudaDev);
  std::vector<GrowthPost> posts;
  GrowthDecision decision;
  std::string lost;

  // Round 1: may every rank grow now? Nothing is allocated before all say yes.
  GrowthPost intent;
  intent.vote = voteFor(capturing, held, full_.totalBytes, config.memoryLimitBytes);
  if (intent.vote == kVoteNotNow) setReason(&intent, "its stream is being captured");
  if (intent.vote == kVoteOverBudget) {
    setReason(&intent, "growing by " + std::to_string(mib(full_.totalBytes)) + " MiB would pass FLASHCCL_MEMORY_LIMIT=" +
                           std::to_string(mib(config.memoryLimitBytes)) + " MiB (" + std::to_string(mib(held)) +
                           " MiB held)");
  }
  bool agreed = agreeOnRound(*board_, localRank_, ++round_, intent, memory, &posts, &decision, &lost);

  // Round 2: the new buffers, each rank's record (or why its allocation failed).
  if (agreed && decision.grow) {
    GrowthPost allocated;
    memory.allocateGrowth(full_, &allocated.record);
    allocated.vote = allocated.record.ok ? kVoteGrow : kVoteFailed;
    if (!allocated.record.ok) setReason(&allocated, allocated.record.failure);
    agreed = agreeOnRound(*board_, localRank_, ++round_, allocated, memory, &posts, &decision, &lost);
  }
  // Round 3: every rank mapped every peer's new buffer; only then do the kernels switch.
  if (agreed && decision.grow) {
    std::vector<PeerRecord> records;
    for (const GrowthPost& post : posts) records.push_back(post.record);
    GrowthPost mapped;
    const std::string mapWhy = memory.mapGrowth(records.data());
    mapped.vote = mapWhy.empty() ? kVoteGrow : kVoteFailed;
    setReason(&mapped, mapWhy);
    agreed = agreeOnRound(*board_, localRank_, ++round_, mapped, memory, &posts, &decision, &lost);
  }

  if (agreed && decision.grow) {
    memory.finishGrowth(true);
    stage_ = Stage::kFull;
    FCCL_INFO(kLogInit | kLogP2p, "comm %p rank %d/%d: peer buffer grown to %zu MiB at a call above "
              "FLASHCCL_SMALL_CALL_BYTES=%zu (%d lanes x %d slots x %zu KiB)",
              (void*)ctx->comm, ctx->rank, ctx->nranks, mib(full_.totalBytes), smallCallBytes_, full_.lanes,
              full_.slots, full_.chunkBytes >> 10);
    return nullptr;
  }
  memory.finishGrowth(false);
  if (agreed && !decision.stopTrying) return kNotNow;
  stage_ = Stage::kStaysSmall;
  if (!agreed) {
    FCCL_WARN("comm %p rank %d/%d: calls above FLASHCCL_SMALL_CALL_BYTES=%zu stay on NCCL: %s", (void*)ctx->comm,
              ctx->rank, ctx->nranks, smallCallBytes_, lost.c_str());
  } else {
    FCCL_INFO(kLogInit | kLogP2p, "comm %p rank %d/%d: calls above FLASHCCL_SMALL_CALL_BYTES=%zu stay on NCCL: %s",
              (void*)ctx->comm, ctx->rank, ctx->nranks, smallCallBytes_, decision.why.c_str());
  }
  return kStaysSmall;
}

}  // namespace flashccl
