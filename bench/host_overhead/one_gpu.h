// Two ranks on ONE GPU, for when no second GPU is there (NCCL refuses two ranks on one device).
// tests/gpu/virtual_ranks.h lays out each rank's communication buffer, counters and stream on
// device 0; here each rank also gets a CommContext of its own, registered in flashccl's CommTable
// under a made-up ncclComm_t, with the selector production set-up builds (runtime/comm_setup.cc:
// this machine's selection table, FLASHCCL_ALGO, resolveAlgorithm), and marked ready.
//
// ncclAllReduce on such a handle then runs exactly the production path (the export,
// dispatchCollective, the table look-up, Selector::choose, Algorithm::launch); only set-up
// differs, and set-up is not measured. The handle never reaches NCCL: the benchmarks skip any
// size flashccl would forward before they make a call.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "two_gpus.h"

namespace flashccl::testing {
class VirtualRanks;
}

namespace flashccl_bench {

class OneGpuRanks {
 public:
  // `maxBytes` of send and receive buffer per rank. Null with *problem set when device 0 cannot
  // hold the ranks.
  static std::unique_ptr<OneGpuRanks> create(size_t maxBytes, std::string* problem);
  ~OneGpuRanks();
  OneGpuRanks(const OneGpuRanks&) = delete;
  OneGpuRanks& operator=(const OneGpuRanks&) = delete;

  // What rank `rank`'s calls use: the made-up handle, the rank's stream, its buffers.
  const RankSlot& slot(int rank) const { return slots_[rank]; }
  // Where the selection table came from (selectionTableForThisMachine's words).
  const std::string& selectionSource() const { return selectionSource_; }

 private:
  OneGpuRanks() = default;

  std::unique_ptr<flashccl::testing::VirtualRanks> ranks_;
  std::array<RankSlot, kRanks> slots_{};
  std::string selectionSource_;
};

}  // namespace flashccl_bench
