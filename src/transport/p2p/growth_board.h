// A node board (node_board.h) per communicator, through which the ranks of one node agree on
// growing their peer buffers and trade the new buffers' records
// (docs/design.md, "Memory grows with use"). It is host memory only: a rank can take part while
// its stream is being captured into a CUDA graph, where neither NCCL nor a CUDA copy may run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transport/p2p/node_board.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

// What a rank says in one round.
struct GrowthPost {
  int32_t vote = 0;      // the round's meaning: runtime/buffer_growth.h
  char reason[96] = {};  // why, when the vote is not a yes
  PeerRecord record{};   // the new buffer, in the round that trades them
};

static_assert(sizeof(GrowthPost) <= NodeBoard::kMaxRecordBytes, "a growth post is one node board record");

// The node board of one communicator's growth rounds, with the posts typed.
class GrowthBoard {
 public:
  GrowthBoard(const GrowthBoard&) = delete;
  GrowthBoard& operator=(const GrowthBoard&) = delete;

  // A name no other communicator uses: one rank makes it, set-up hands it to the others.
  static std::string newName() { return NodeBoard::newName(); }
  // Opens (creating if needed) the board `name` for `nranks` ranks; null with *why on failure.
  // Every rank of the node opens it before any posts.
  static std::unique_ptr<GrowthBoard> open(const std::string& name, int nranks, std::string* why);
  // Removes the name once every rank has opened it (the mappings stay): nothing is left in
  // /dev/shm when a process dies. Any rank may call it; a second call does nothing.
  static void unlink(const std::string& name) { NodeBoard::unlink(name); }

  // Publishes this rank's post for `round` (1, 2, ...; every rank counts the same rounds).
  void post(int rank, uint64_t round, const GrowthPost& post) { board_->post(rank, round, &post, sizeof(post)); }
  // Waits until every rank has posted `round` and copies the posts out (by rank). False, with
  // *why, when `stop` says so first (the communicator was aborted) or `timeoutSeconds` passed.
  template <typename Stop>
  bool collect(uint64_t round, std::vector<GrowthPost>* posts, Stop stop, double timeoutSeconds, std::string* why) {
    std::vector<std::vector<char>> records;
    if (!board_->collect(round, &records, stop, timeoutSeconds, "the call that grows the peer buffer", why)) return false;
    posts->assign(records.size(), GrowthPost{});
    for (size_t r = 0; r < records.size(); ++r) {
      // A peer's record may be shorter (or empty): the rest of the post stays zero.
      if (!records[r].empty()) {
        std::memcpy(static_cast<void*>(&(*posts)[r]), records[r].data(), std::min(records[r].size(), sizeof(GrowthPost)));
      }
      (*posts)[r].reason[sizeof((*posts)[r].reason) - 1] = '\0';  // another process wrote it
    }
    return true;
  }

  int nranks() const { return board_->nranks(); }

 private:
  explicit GrowthBoard(std::unique_ptr<NodeBoard> board) : board_(std::move(board)) {}
  std::unique_ptr<NodeBoard> board_;
};

}  // namespace flashccl
