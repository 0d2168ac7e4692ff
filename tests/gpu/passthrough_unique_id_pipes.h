// Hands rank 0's ncclUniqueId to the other rank processes of procs mode. Rank 0 makes the id, as
// launchers do, so NCCL's bootstrap root lives in a rank that stays up for the whole job; the
// supervisor only makes the pipes before forking and never touches NCCL.
#pragma once

#include <string>
#include <vector>

#include <nccl.h>

namespace flashccl_gpu_test::passthrough {

class UniqueIdPipes {
 public:
  explicit UniqueIdPipes(int nranks);  // one pipe per rank 1..nranks-1
  ~UniqueIdPipes() { closeAll(); }
  UniqueIdPipes(const UniqueIdPipes&) = delete;
  UniqueIdPipes& operator=(const UniqueIdPipes&) = delete;

  const std::string& error() const { return error_; }  // "" when every pipe was made

  // In rank `rank`'s process, right after the fork: closes every end that rank does not use, so
  // a reader sees end-of-file, not a hang, if rank 0 dies before sending.
  void keepFor(int rank);
  // In the supervisor once every rank is forked.
  void closeAll();

  // Rank 0. Returns "" or what failed.
  std::string send(const ncclUniqueId& id);
  // Ranks 1..n-1. Returns "" or what failed (end of file, time-out).
  std::string receive(int rank, ncclUniqueId* id, double timeoutS);

 private:
  struct Pipe {
    int read = -1;
    int write = -1;
  };
  std::vector<Pipe> pipes_;  // index = receiving rank; pipes_[0] is unused
  std::string error_;
};

}  // namespace flashccl_gpu_test::passthrough
