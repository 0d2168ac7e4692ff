// One communicator's tuner state: the rows of the table that can apply to its ranks and nodes,
// and what NCCL is told for each call it asks about. Built at init (where allocating is fine);
// the per-call methods neither allocate nor lock, and never fail: whatever cannot be applied is
// left to NCCL.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "nccl_tuner_abi.h"
#include "tuning_table.h"

namespace flashccl {

class TunerContext {
 public:
  TunerContext(const TuningTable& table, int nRanks, int nNodes, nccl_abi::Logger logger);

  size_t rowCount() const { return rows_.size(); }

  // Tuner v3-v5. `costTable` is NCCL's float[numAlgo][numProto] passed as float**. The first
  // matching row's cell is set to 0.0 (NCCL takes the cheapest cell) and *nChannels to its
  // channel count when it has one; a cell NCCL marked unavailable (-1) is never touched, and then
  // nothing is. No matching row: nothing is touched.
  void chooseInCostTable(const TunedCall& call, float** costTable, int numAlgo, int numProto,
                         int* nChannels);

  // Tuner v2: no cost table. Sets *algorithm, *protocol and *nChannels from the first matching
  // row, unless it names CollNet or NVLS algorithms NCCL says it cannot run.
  void chooseByName(const TunedCall& call, bool collNetSupport, bool nvlsSupport, int* algorithm,
                    int* protocol, int* nChannels);

 private:
  // The first matching row and its index, or nullptr.
  const TuningRow* firstMatch(const TunedCall& call, size_t* index) const;
  // What happened to a call, logged the first time it happens for a (row, collective).
  void reportApplied(size_t index, const TunedCall& call);
  void reportUnavailable(size_t index, const TunedCall& call);
  bool firstTime(std::unique_ptr<std::atomic<bool>[]>& flags, size_t index, const TunedCall& call);

  std::vector<TuningRow> rows_;
  std::vector<std::string> choices_;  // describeChoice() of each row
  bool forced_;
  int nRanks_;
  int nNodes_;
  nccl_abi::Logger logger_;
  // One flag per (row, collective); atomic because NCCL may ask from more than one thread.
  std::unique_ptr<std::atomic<bool>[]> appliedReported_;
  std::unique_ptr<std::atomic<bool>[]> unavailableReported_;
};

}  // namespace flashccl
