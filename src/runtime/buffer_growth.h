// Memory grows with use (docs/design.md, "Memory grows with use"): a communicator starts with a
// small packet buffer and maps its full FLASHCCL_BUFFER_BYTES buffer at the first call that needs
// it, at the same call on every rank, or keeps such calls on NCCL when a rank cannot grow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/coll_call.h"
#include "transport/p2p/buffer_layout.h"

namespace flashccl {

class CommContext;
class CommView;
class GrowthBoard;
class GrownView;
class PeerMemory;

// What a rank says in the first round of a growth.
enum GrowthVote : int32_t {
  kVoteGrow = 1,        // allocated its full buffer (the record describes it)
  kVoteNotNow = 2,      // cannot take part now (its stream is being captured): ask again later
  kVoteOverBudget = 3,  // the buffer would pass FLASHCCL_MEMORY_LIMIT
  kVoteFailed = 4,      // allocating it failed
};

// The verdict every rank reaches from the same votes.
struct GrowthDecision {
  bool grow = false;        // every rank allocated: map and switch
  bool stopTrying = false;  // a rank is over its budget or failed: large calls stay on NCCL
  std::string why;          // which rank said no, and why (empty when growing)
};
GrowthDecision decideGrowth(const std::vector<int32_t>& votes, const std::vector<std::string>& reasons);

// What a rank votes, from what it knows: whether its stream is being captured, the peer-buffer
// bytes this process holds on the GPU, what growing adds and FLASHCCL_MEMORY_LIMIT.
GrowthVote voteFor(bool capturing, size_t allocated, size_t growthBytes, size_t limit);

// Bytes of the call's largest buffer: what FLASHCCL_SMALL_CALL_BYTES is compared with. The same
// on every rank (count and type are).
size_t largestBufferBytes(const CollCall& call, int nranks);

// The buffer state of one communicator (CommContext::buffer).
class BufferGrowth {
 public:
  enum class Stage {
    kFull,        // the full buffer is mapped (grown, or mapped at set-up)
    kSmall,       // the small buffer only; the next large call outside a group tries to grow
    kStaysSmall,  // a rank could not grow: large calls go to NCCL from now on
  };
  BufferGrowth();
  ~BufferGrowth();

  // Set-up's choice for a communicator that starts small.
  void startSmall(size_t smallCallBytes, const BufferLayout& full, std::unique_ptr<GrowthBoard> board, int localRank);

  Stage stage() const { return stage_; }
  // Whether the call is above the small size on a buffer that is not full. Cheap: the hot path
  // asks it. (A small call whose algorithm streams chunks needs growth too: dispatch asks that.)
  bool callNeedsGrowth(const CollCall& call, int nranks) const {
    return stage_ != Stage::kFull && largestBufferBytes(call, nranks) > smallCallBytes_;
  }
  size_t smallCallBytes() const { return smallCallBytes_; }
  const BufferLayout& fullLayout() const { return full_; }

  // `ctx` as it will be once grown (its peers' layout the full one, nothing behind it): what a
  // call above the small size is routed on while the buffer is small, so that a selection row
  // whose algorithm needs the larger slots grows the buffer instead of handing the call to a later
  // row. Null while the communicator has no peer memory. Made at the first need, kept.
  const CommView* grownView(CommContext* ctx);

  // For a call that needs growth (callNeedsGrowth): grows the buffer, every rank at this call,
  // or says why the call goes to NCCL (a reason:: string that lives for ever). Null: grown, the
  // call may run on our kernels. `inGroup`: never waits for peers inside ncclGroupStart/End (one
  // thread may be driving the peers); `capturing`: takes part but votes not now.
  const char* growForCall(CommContext* ctx, bool inGroup, bool capturing);

 private:
  Stage stage_ = Stage::kFull;
  size_t smallCallBytes_ = 0;
  BufferLayout full_{};
  std::unique_ptr<GrowthBoard> board_;
  int localRank_ = 0;
  uint64_t round_ = 0;  // board rounds used so far; the same on every rank
  std::unique_ptr<PeerMemory> grownMemory_;
  std::unique_ptr<GrownView> grownView_;
};

}  // namespace flashccl
