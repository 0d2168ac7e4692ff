// Every rank of a communicator on ONE GPU: each rank gets its own communication buffer, counters
// and stream on device 0, and every buffer is reachable as a "peer" (it is the same device). The
// kernels cannot tell the difference from a real NVLink box, so their logic (protocols, flags,
// counters across launches, graph replay) can be checked for 2, 4 and 8 ranks with one GPU.
// The multiprocessors are shared, so each rank gets its share of the resident blocks.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "runtime/comm_context.h"
#include "transport/p2p/device_comm.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl::testing {

class VirtualRanks {
 public:
  // Null when the buffers cannot be allocated or laid out. `sweepInterval`: launches between
  // sweeps of the packet slots (DeviceComm::sweepInterval); tests shorten it to run the sweep.
  static std::unique_ptr<VirtualRanks> create(int nranks, uint64_t sweepInterval = kLLSweepInterval);
  // The cached set of `nranks` ranks (made on first use). After a hang its counters no longer
  // agree between ranks: forget() drops it so the next test starts clean.
  static VirtualRanks* shared(int nranks);
  static void forget(int nranks);
  ~VirtualRanks();

  int size() const { return n_; }
  const DeviceComm& comm(int rank) const { return comms_[rank]; }
  CommContext& context(int rank) { return *contexts_[rank]; }
  cudaStream_t stream(int rank) const { return streams_[rank]; }

  // Runs launch(rank) on every rank `runs` times, each time waiting for all of them. With `graph`,
  // each rank's launch is captured once into a CUDA graph and the graph is replayed instead. On a
  // failed launch, CUDA error or hang: false with *error, and the cached set is forgotten.
  bool run(const std::function<bool(int rank)>& launch, bool graph, int runs, std::string* error);

  // Waits for every rank's stream. On a hang (nothing finishes within `seconds`) raises the abort
  // flag so the kernels return, and says false; also false on a CUDA error.
  bool finish(double seconds);
  // The error our kernels recorded on any rank (kDeviceErrorNone = none); clearErrors() resets
  // the records and the abort flag.
  int deviceError() const;
  // Rank `rank`'s error record.
  const volatile DeviceErrorRecord& errorRecord(int rank) const { return hostWords_[rank].error; }
  void clearErrors();

 private:
  VirtualRanks() = default;
  int n_ = 0;
  std::vector<char*> buffers_;
  std::vector<uint64_t*> state_;
  std::vector<DeviceComm> comms_;
  std::vector<std::unique_ptr<CommContext>> contexts_;
  std::vector<cudaStream_t> streams_;
  PeerHostWords* hostWords_ = nullptr;  // one per rank, pinned and mapped
  int* hostAbort_ = nullptr;
};

}  // namespace flashccl::testing
