// What an algorithm sees of its communicator: who this rank is, the peers' memory, and the
// reductions created on it. The runtime's CommContext is one (it adds lifecycle, statistics and
// the call sequence on top); tests and `flashccl plan` make their own. Keeping algorithms on
// this narrow view is what lets the algorithm layer sit below the runtime (docs/design.md,
// "Layers").
#pragma once

#include <nccl.h>

#include "algo/redop_table.h"

namespace flashccl {

class PeerMemory;
struct Hierarchy;

class CommView {
 public:
  CommView(ncclComm_t comm, int rank, int nranks, int cudaDev)
      : comm(comm), rank(rank), nranks(nranks), cudaDev(cudaDev) {}
  CommView(const CommView&) = delete;
  CommView& operator=(const CommView&) = delete;

  const ncclComm_t comm;
  int rank;     // fixed once the communicator is set up
  int nranks;   // fixed once the communicator is set up
  int cudaDev;  // fixed once the communicator is set up

  // Our buffers and every peer's, mapped; null until set-up attached them. On a communicator
  // across nodes: this rank's node's ranks only.
  PeerMemory* peers() const { return peers_; }
  // Nodes, rails and what the steps between nodes need (hierarchy.h); null on a communicator
  // inside one node.
  const Hierarchy* hierarchy() const { return hierarchy_; }
  // PreMulSum ops created with ncclRedOpCreatePreMulSum on this communicator.
  RedOpTable& redOps() { return *redOps_; }
  const RedOpTable& redOps() const { return *redOps_; }

 protected:
  ~CommView() = default;
  // A view of the same communicator with other memory (a preview of its grown buffer) sees the
  // communicator's own PreMulSum ops.
  void shareRedOpsOf(CommView& communicator) { redOps_ = communicator.redOps_; }
  PeerMemory* peers_ = nullptr;
  const Hierarchy* hierarchy_ = nullptr;

 private:
  RedOpTable ownRedOps_;
  RedOpTable* redOps_ = &ownRedOps_;
};

}  // namespace flashccl
