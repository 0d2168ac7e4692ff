#include "tuner_context.h"

#include "tuner_log.h"

namespace flashccl {

namespace {

std::unique_ptr<std::atomic<bool>[]> clearedFlags(size_t count) {
  std::unique_ptr<std::atomic<bool>[]> flags(new std::atomic<bool>[count]);
  for (size_t i = 0; i < count; ++i) flags[i].store(false, std::memory_order_relaxed);
  return flags;
}

bool isCollNet(int algorithm) {
  return algorithm == nccl_abi::kAlgoCollNetDirect || algorithm == nccl_abi::kAlgoCollNetChain;
}

bool isNvls(int algorithm) {
  return algorithm == nccl_abi::kAlgoNvls || algorithm == nccl_abi::kAlgoNvlsTree;
}

}  // namespace

TunerContext::TunerContext(const TuningTable& table, int nRanks, int nNodes,
                           nccl_abi::Logger logger)
    : forced_(table.forced), nRanks_(nRanks), nNodes_(nNodes), logger_(logger) {
  for (const TuningRow& row : table.rows) {
    if (!row.forCommunicator(nRanks, nNodes)) continue;
    rows_.push_back(row);
    choices_.push_back(describeChoice(row));  // now: the per-call log line must not allocate
  }
  appliedReported_ = clearedFlags(rows_.size() * nccl_abi::kNumTunedFuncs);
  unavailableReported_ = clearedFlags(rows_.size() * nccl_abi::kNumTunedFuncs);
}

const TuningRow* TunerContext::firstMatch(const TunedCall& call, size_t* index) const {
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].matches(call)) {
      *index = i;
      return &rows_[i];
    }
  }
  return nullptr;
}

void TunerContext::chooseInCostTable(const TunedCall& call, float** costTable, int numAlgo,
                                     int numProto, int* nChannels) {
  size_t index = 0;
  const TuningRow* row = firstMatch(call, &index);
  if (row == nullptr) return;
  if (row->choosesAlgorithm()) {
    // NCCL passes a contiguous float[numAlgo][numProto] cast to float**: index it flat. Reading
    // it as an array of row pointers is the crash of NCCL's example tuner.
    float* cells = reinterpret_cast<float*>(costTable);
    if (cells == nullptr || row->algorithm >= numAlgo || row->protocol >= numProto ||
        !(cells[row->algorithm * numProto + row->protocol] >= 0.0f)) {
      reportUnavailable(index, call);
      return;
    }
    cells[row->algorithm * numProto + row->protocol] = 0.0f;
  }
  if (row->channels > 0 && nChannels != nullptr) *nChannels = row->channels;
  reportApplied(index, call);
}

void TunerContext::chooseByName(const TunedCall& call, bool collNetSupport, bool nvlsSupport,
                                int* algorithm, int* protocol, int* nChannels) {
  size_t index = 0;
  const TuningRow* row = firstMatch(call, &index);
  if (row == nullptr) return;
  if (row->choosesAlgorithm()) {
    if ((isCollNet(row->algorithm) && !collNetSupport) || (isNvls(row->algorithm) && !nvlsSupport) ||
        algorithm == nullptr || protocol == nullptr) {
      reportUnavailable(index, call);
      return;
    }
    *algorithm = row->algorithm;
    *protocol = row->protocol;
  }
  if (row->channels > 0 && nChannels != nullptr) *nChannels = row->channels;
  reportApplied(index, call);
}

bool TunerContext::firstTime(std::unique_ptr<std::atomic<bool>[]>& flags, size_t index,
                             const TunedCall& call) {
  const size_t slot = index * nccl_abi::kNumTunedFuncs + size_t(call.coll);
  return call.coll >= 0 && call.coll < nccl_abi::kNumTunedFuncs &&
         // A read first: after the first time, every call of the collective reads the flag and
         // writes nothing (no shared cache line bounced between NCCL's threads).
         !flags[slot].load(std::memory_order_relaxed) && !flags[slot].exchange(true, std::memory_order_relaxed);
}

void TunerContext::reportApplied(size_t index, const TunedCall& call) {
  if (!firstTime(appliedReported_, index, call)) return;
  const TuningRow& row = rows_[index];
  FLASHCCL_TUNER_LOG(logger_, nccl_abi::kLogInfo, nccl_abi::kSubsysTuning,
                     "%s %zu bytes (%d ranks, %d nodes, %d pipelined ops, regBuff %d) -> %s "
                     "(%s; logged once per row and collective)",
                     collectiveName(call.coll), call.bytes, nRanks_, nNodes_, call.numPipeOps,
                     int(call.regBuff), choices_[index].c_str(), row.source.c_str());
}

void TunerContext::reportUnavailable(size_t index, const TunedCall& call) {
  if (!firstTime(unavailableReported_, index, call)) return;
  const TuningRow& row = rows_[index];
  // A forced choice that does not happen is what a sweep must not miss; a table row may name a
  // cell NCCL_ALGO / NCCL_PROTO exclude on purpose.
  FLASHCCL_TUNER_LOG(logger_, forced_ ? nccl_abi::kLogWarn : nccl_abi::kLogInfo,
                     nccl_abi::kSubsysTuning,
                     "%s %zu bytes: %s/%s is not available to this communicator (NCCL marks it "
                     "unusable); NCCL's own choice is kept (%s)",
                     collectiveName(call.coll), call.bytes, algorithmName(row.algorithm),
                     protocolName(row.protocol), row.source.c_str());
}

}  // namespace flashccl
