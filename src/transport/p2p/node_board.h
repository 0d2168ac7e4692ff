// Shared host memory (POSIX shm) through which the ranks of one node trade small records in
// rounds, without the GPU and without NCCL: the growth votes (growth_board.h) and the set-up
// rounds of a one-node communicator (runtime/setup_exchange.h; docs/design.md, "Set-up"). A
// round through NCCL costs a kernel on every rank, milliseconds where processes share a GPU; a
// round here costs microseconds, and a rank can take part while its stream is being captured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace flashccl {

class NodeBoard {
 public:
  ~NodeBoard();
  NodeBoard(const NodeBoard&) = delete;
  NodeBoard& operator=(const NodeBoard&) = delete;

  // Largest record a round carries.
  static constexpr size_t kMaxRecordBytes = 1024;

  // A name no other board uses: one rank makes it, the others learn it from that rank.
  static std::string newName();
  // Opens the board `name` for `nranks` ranks (1 to 64), creating it if `create`; null with *why
  // on failure. Every rank opens it before any posts.
  static std::unique_ptr<NodeBoard> open(const std::string& name, int nranks, bool create, std::string* why);
  // Removes the name once every rank has opened it (the mappings stay): nothing is left in
  // /dev/shm when a process dies. Any rank may call it; a second call does nothing.
  static void unlink(const std::string& name);

  // Publishes this rank's record for `round` (1, 2, ...; every rank counts the same rounds).
  // At most kMaxRecordBytes; the caller keeps sizes the same on every rank.
  void post(int rank, uint64_t round, const void* record, size_t bytes);
  // Waits until every rank has posted `round` and copies the records out (by rank, each as many
  // bytes as its poster wrote, at most kMaxRecordBytes). False, with *why, when `stop` says so
  // first or `timeoutSeconds` passed; `waitingFor` completes the words ("the set-up of ...").
  template <typename Stop>
  bool collect(uint64_t round, std::vector<std::vector<char>>* records, Stop stop, double timeoutSeconds,
               const char* waitingFor, std::string* why);

  int nranks() const { return nranks_; }

 private:
  NodeBoard() = default;
  struct Slot;
  // Whether rank r has posted `round`; copies its record when it has.
  bool read(int rank, uint64_t round, std::vector<char>* out) const;
  double secondsSince(uint64_t startNs) const;
  static void pause();  // a short sleep between looks at the board
  static uint64_t nowNs();

  Slot* slots_ = nullptr;  // [rank][round parity]
  size_t bytes_ = 0;
  int nranks_ = 0;
};

template <typename Stop>
bool NodeBoard::collect(uint64_t round, std::vector<std::vector<char>>* records, Stop stop, double timeoutSeconds,
                        const char* waitingFor, std::string* why) {
  records->assign(nranks_, {});
  std::vector<bool> have(nranks_, false);
  const uint64_t start = nowNs();
  int missing = nranks_;
  for (uint64_t spins = 0; missing > 0; ++spins) {
    for (int r = 0; r < nranks_; ++r) {
      if (!have[r] && read(r, round, &(*records)[r])) {
        have[r] = true;
        --missing;
      }
    }
    if (missing == 0) break;
    if ((spins & 1023) == 1023) {
      if (stop()) {
        *why = std::string("the communicator was aborted while its ranks waited for ") + waitingFor;
        return false;
      }
      const double waited = secondsSince(start);
      // Peers usually arrive within microseconds; one that computes first should not cost a core.
      if (waited > 1e-3) pause();
      if (waited > timeoutSeconds) {
        int first = 0;
        while (first < nranks_ && have[first]) ++first;
        *why = "rank " + std::to_string(first) + " of the node did not reach " + waitingFor + " within " +
               std::to_string(static_cast<int>(timeoutSeconds)) + " s";
        return false;
      }
    }
  }
  return true;
}

}  // namespace flashccl
