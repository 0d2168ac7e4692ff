// flashccl's state for one ncclComm_t, kept in a side table keyed by the real pointer
// (docs/design.md, "Never wrap ncclComm_t": we never wrap ncclComm_t).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "algo/comm_view.h"
#include "runtime/buffer_growth.h"
#include "runtime/comm_stats.h"
#include "runtime/comm_trace.h"
#include "runtime/node_rails.h"
#include "runtime/device_scope.h"
#include "runtime/launch_order.h"
#include "runtime/stream_device.h"
#include "topo/node_grouping.h"
#include "transport/p2p/node_board.h"

namespace flashccl {

class PeerMemory;     // transport/p2p: our buffers and every peer's, mapped
class Selector;       // select/: per-communicator compiled selection table

// A CommContext is the CommView algorithms see (identity, peer memory, reductions) plus what
// only the runtime needs: lifecycle state, statistics, selection and launch ordering.
class CommContext final : public CommView {
 public:
  enum class State : int {
    kPending = 0,   // created; our set-up has not run yet (inside a group, or non-blocking)
    kReady = 1,     // set up: our algorithms may run
    kDisabled = 2,  // set-up failed or was refused: everything goes to NCCL
  };

  // rank/nranks/cudaDev may be -1/0/-1 for a Pending context: NCCL refuses ncclCommCount & co.
  // on a communicator whose init has not completed (inside a group, non-blocking), so they are
  // filled in by setIdentity() once it has, before set-up.
  CommContext(ncclComm_t comm, int rank, int nranks, int cudaDev, bool blocking);
  ~CommContext();
  CommContext(const CommContext&) = delete;
  CommContext& operator=(const CommContext&) = delete;

  const bool blocking;
  void setIdentity(int rank, int nranks, int cudaDev);
  bool hasIdentity() const { return nranks > 0; }

  State state() const { return state_.load(std::memory_order_acquire); }
  // Why the communicator was disabled (empty otherwise).
  const std::string& disabledReason() const { return disabledReason_; }
  // One WARN (INFO with `expected`: the user asked for it), then everything falls back.
  void disable(const std::string& reason, bool expected = false);
  void markReady() { state_.store(State::kReady, std::memory_order_release); }

  CommStats stats;
  // Name of the algorithm that ran the last intercepted call ("NCCL" after a fallback).
  std::atomic<const char*> lastAlgorithm{"NCCL"};
  // Collective calls made on this communicator so far, ours and forwarded ones: the sequence
  // number the call headers carry. Only the thread that calls the communicator touches it, as
  // NCCL requires.
  uint64_t callSequence = 0;
  // Tells dispatch cheaply that this communicator's device is already current (device_scope.h).
  CurrentContextHint currentContextHint;
  // Whether a call's stream is on this communicator's device (stream_device.h); only the thread
  // that calls the communicator touches it, as NCCL requires.
  StreamDeviceCheck streamDevice;

  // Which node every rank is on (set-up's first round; node_setup.h).
  NodeGrouping nodes;
  // Set-up's later rounds on a one-node communicator whose ranks share /dev/shm go through rank
  // 0's node board instead of NCCL (setup_exchange.h); open only while set-up runs.
  std::unique_ptr<NodeBoard> setupBoard;
  std::string setupBoardName;  // rank 0 made it and removes the name when set-up ends
  uint64_t setupRound = 0;
  // Its peers use rank 0's board but this rank could not open it: its later rounds fail at once
  // (never an NCCL round its peers do not join); they wait out the timeout, and all stay on NCCL.
  bool setupBoardUnreachable = false;

  // Transport and selection, attached by set-up (transport/p2p, select/). Across nodes the peer
  // memory is this rank's node's, and the rails carry the steps between nodes (node_rails.h).
  void attachPeers(std::unique_ptr<PeerMemory> peers);
  void attachRails(std::unique_ptr<NodeRails> rails);
  const Selector* selector() const { return selector_.get(); }
  void attachSelector(std::unique_ptr<Selector> selector);

  // Whether the peer buffer is small or full, and growing it (buffer_growth.h).
  BufferGrowth buffer;
  // ncclCommRevoke, NCCL_SHRINK_ABORT, after the real NCCL's: frees the peer buffers (and closes
  // this rank's mappings of its peers') while the communicator waits for its destroy; what the
  // host reads (errors, progress) stays. Only on a communicator whose kernels were stopped.
  void releasePeerBuffers();

  // Our kernels on one communicator run one at a time, in call order, on any stream and in any
  // captured graph (launch_order.h).
  LaunchOrder launchOrder;

  // The flight recorder and the watchdog's view of this communicator (null: FLASHCCL_TRACE=0).
  std::unique_ptr<CommTrace> trace;
  // The watchdog's hang action (FLASHCCL_HANG_ACTION=abort, or a peer's process gone): the
  // communicator fails with `reason` from now on, our kernels stop waiting and the rails across
  // nodes are revoked (NodeRails::revokeRail). Any thread; does not wait for the work to end.
  void failFromWatchdog(ncclResult_t reason);
  // FLASHCCL_HANG_ACTION=revoke: the same, and the real communicator is revoked
  // (ncclCommRevoke), so that NCCL's own work on it ends and the application can shrink it
  // (docs/trace.md, "Recovery"). From the watchdog's thread, while it holds the communicator
  // registered: the shim unregisters it before the real destroy or abort.
  void revokeFromWatchdog(ncclResult_t reason);

  // The error our kernels recorded (ranks that called different things at one point, or an
  // abort), or the watchdog's; ncclSuccess when none. The first time it is seen, one WARN says what each side
  // called. Every later call on the communicator fails with it, as NCCL fails a communicator
  // after an asynchronous error. Cheap: one read of pinned host memory.
  ncclResult_t asyncError();

  // The parent of a successful ncclCommShrink(NCCL_SHRINK_ABORT): its failed work was aborted and
  // the survivors went on in the child, so from now on it reports no error of ours, as NCCL's
  // parent reports none after the shrink (PyTorch's shrink_group waits for the parent to report
  // success and fails the recovery otherwise; docs/trace.md, "Recovery").
  void settleAfterShrink() { settled_.store(true, std::memory_order_relaxed); }

  // ncclCommAbort, ncclCommRevoke, NCCL_SHRINK_ABORT: our kernels stop waiting for peers and the
  // rail communicators are aborted, so nothing of ours keeps waiting for a rank that is gone.
  void abortInFlightWork();

 private:
  std::atomic<State> state_{State::kPending};
  std::string disabledReason_;
  std::unique_ptr<PeerMemory> ownedPeers_;
  std::unique_ptr<NodeRails> rails_;
  std::unique_ptr<Selector> selector_;
  std::atomic<bool> errorReported_{false};
  std::atomic<int> watchdogError_{ncclSuccess};
  std::atomic<bool> settled_{false};
};

}  // namespace flashccl
