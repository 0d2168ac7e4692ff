// A few hundred bytes of shared host memory per communicator (POSIX shm), through which the ranks
// of one node agree on growing their peer buffers and trade the new buffers' records
// (docs/design.md, "Memory grows with use"). It is host memory only: a rank can take part while
// its stream is being captured into a CUDA graph, where neither NCCL nor a CUDA copy may run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transport/p2p/peer_memory.h"

namespace flashccl {

// What a rank says in one round.
struct GrowthPost {
  int32_t vote = 0;      // the round's meaning: runtime/buffer_growth.h
  char reason[96] = {};  // why, when the vote is not a yes
  PeerRecord record{};   // the new buffer, in the round that trades them
};

class GrowthBoard {
 public:
  ~GrowthBoard();
  GrowthBoard(const GrowthBoard&) = delete;
  GrowthBoard& operator=(const GrowthBoard&) = delete;

  // A name no other communicator uses: one rank makes it, set-up hands it to the others.
  static std::string newName();
  // Opens (creating if needed) the board `name` for `nranks` ranks; null with *why on failure.
  // Every rank of the node opens it before any posts.
  static std::unique_ptr<GrowthBoard> open(const std::string& name, int nranks, std::string* why);
  // Removes the name once every rank has opened it (the mappings stay): nothing is left in
  // /dev/shm when a process dies. Any rank may call it; a second call does nothing.
  static void unlink(const std::string& name);

  // Publishes this rank's post for `round` (1, 2, ...; every rank counts the same rounds).
  void post(int rank, uint64_t round, const GrowthPost& post);
  // Waits until every rank has posted `round` and copies the posts out (by rank). False, with
  // *why, when `stop` says so first (the communicator was aborted) or `timeoutSeconds` passed.
  template <typename Stop>
  bool collect(uint64_t round, std::vector<GrowthPost>* posts, Stop stop, double timeoutSeconds, std::string* why);

  int nranks() const { return nranks_; }

 private:
  GrowthBoard() = default;
  struct Slot;
  // Whether rank r has posted `round`; copies its post when it has.
  bool read(int rank, uint64_t round, GrowthPost* out) const;
  double secondsSince(uint64_t startNs) const;
  static void pause();  // a short sleep between looks at the board
  static uint64_t nowNs();

  Slot* slots_ = nullptr;  // [rank][round parity]
  size_t bytes_ = 0;
  int nranks_ = 0;
};

template <typename Stop>
bool GrowthBoard::collect(uint64_t round, std::vector<GrowthPost>* posts, Stop stop, double timeoutSeconds,
                          std::string* why) {
  posts->assign(nranks_, GrowthPost{});
  std::vector<bool> have(nranks_, false);
  const uint64_t start = nowNs();
  int missing = nranks_;
  for (uint64_t spins = 0; missing > 0; ++spins) {
    for (int r = 0; r < nranks_; ++r) {
      if (!have[r] && read(r, round, &(*posts)[r])) {
        have[r] = true;
        --missing;
      }
    }
    if (missing == 0) break;
    if ((spins & 1023) == 1023) {
      if (stop()) {
        *why = "the communicator was aborted while its ranks agreed on growing the peer buffer";
        return false;
      }
      const double waited = secondsSince(start);
      // Peers usually arrive within microseconds; one that computes first should not cost a core.
      if (waited > 1e-3) pause();
      if (waited > timeoutSeconds) {
        int first = 0;
        while (first < nranks_ && have[first]) ++first;
        *why = "rank " + std::to_string(first) + " of the node did not reach the call that grows the peer buffer within " +
               std::to_string(static_cast<int>(timeoutSeconds)) + " s";
        return false;
      }
    }
  }
  return true;
}

}  // namespace flashccl
