// The measurement loop of `flashccl perf`, for the ranks one thread drives.
//
// Every mode runs the same loop: one thread per rank (threads mode, and each process of --processes) or one
// thread for several ranks (grouped mode, -g, with ncclGroupStart/End around each call). Each thread
// builds the same list of cases from the same options, so all ranks issue the same collectives in the
// same order. What the ranks must agree on (device descriptions, block times, mismatch counts and
// output hashes) they exchange with small AllGathers through the real NCCL on their communicators,
// which works the same whether the ranks share a process or not.
//
// For each case:
//   1. check (unless --no-check): inputs from the seeded generator, outputs poisoned with 0xFF; the
//      real NCCL runs the call and its output is kept as the reference; then flashccl runs the same
//      call on fresh inputs and a kernel compares and hashes its output; with -G, a CUDA graph replay
//      of flashccl is checked the same way;
//   2. timing: --pairs pairs of blocks, NCCL then flashccl (flashccl first in odd pairs); a block is
//      -w warm-up iterations, a device-side barrier, then -n iterations of -m operations (or -G
//      replays of a graph of them) between CUDA events (-C 1: the host clock); the ranks' block
//      times combine as -a says.
#pragma once

#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "measure_plan.h"
#include "nccl_api.h"
#include "perf_kernels.h"
#include "perf_options.h"
#include "report_sink.h"
#include "run_report.h"

namespace flashccl {
namespace perf {

struct LocalRank {
  int rank = 0;
  int device = 0;
  ncclComm_t comm = nullptr;  // created through flashccl's ncclCommInitRank/ncclCommInitAll
};

class RankDriver {
 public:
  // `sink` receives the run as it happens; pass it only to the driver that holds rank 0.
  RankDriver(const PerfOptions& options, const RankLayout& layout, std::vector<LocalRank> ranks,
             const CollectiveApi& nccl, const CollectiveApi& flashccl, ReportSink* sink);
  ~RankDriver();
  RankDriver(const RankDriver&) = delete;
  RankDriver& operator=(const RankDriver&) = delete;

  // Runs every case. Throws PerfFailure on any CUDA or NCCL error.
  void run();

  // Complete on every driver (all ranks exchange what the report needs), except `algorithm`, which
  // only the driver holding rank 0 knows.
  const RunReport& report() const { return report_; }

 private:
  struct RankState {
    LocalRank id;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    void* send = nullptr;
    void* recv = nullptr;
    void* reference = nullptr;  // NCCL's output of the checked call
    DeviceCheckResult* checkResult = nullptr;
    unsigned char* exchangeSend = nullptr;
    unsigned char* exchangeRecv = nullptr;
    float* barrier = nullptr;
    cudaGraphExec_t timingGraph[2] = {nullptr, nullptr};  // [kNcclSide], [kFlashcclSide]
    cudaGraphExec_t checkGraph = nullptr;                  // one flashccl op (in-place graph check)
  };
  enum Side { kNcclSide = 0, kFlashcclSide = 1 };

  void setUp();
  void tearDown();
  std::string where(const RankState& state) const;  // "rank 1 (GPU 1)"
  void progress(const std::string& what);
  void useDevice(const RankState& state) const;

  // Issues `operations` collectives on every local rank, in one group when there is more than one
  // call in all.
  void launch(Side side, const MeasureCase& c, int operations);
  // One timed iteration: -m operations, then (-z 1) a wait for them.
  void iterate(Side side, const MeasureCase& c);
  void issue(const CollectiveApi& api, const MeasureCase& c, RankState& state,
             const CaseLayout& layout);
  void* regionPointer(RankState& state, const Region& region) const;
  void prepareInputs(const MeasureCase& c, bool poison);
  void waitForStream(const RankState& state, const std::string& what) const;
  void waitForAll(const std::string& what);
  void deviceBarrier();
  // AllGather of `perRank[l]` (same size, at most kExchangeBytes) from every local rank; returns the
  // blocks of all ranks, in rank order.
  std::vector<std::vector<uint8_t>> exchange(const std::vector<std::vector<uint8_t>>& perRank);

  std::vector<DeviceInfo> gatherDevices();
  uint64_t checkCase(const MeasureCase& c, const ComparePolicy& policy);
  uint64_t checkGraphReplay(const MeasureCase& c, const ComparePolicy& policy);
  uint64_t compareWithReference(const MeasureCase& c, const ComparePolicy& policy,
                                const std::string& how);
  void captureGraphs(const MeasureCase& c);
  void destroyGraphs();
  std::vector<double> timeBlock(Side side, const MeasureCase& c);  // per local rank, us per op
  SizeResult measure(const MeasureCase& c, int cycle);

  std::string describe(const MeasureCase& c) const;

  PerfOptions options_;
  RankLayout layout_;
  int nranks_;
  CollectiveApi apis_[2];
  ReportSink* sink_;
  std::vector<RankState> ranks_;
  std::vector<MeasureCase> cases_;
  size_t bufferBytes_ = 0;
  bool holdsRankZero_ = false;
  bool capturing_ = false;             // inside a CUDA graph capture (for error messages)
  std::vector<CaseLayout> layouts_;    // the current case's layout, per local rank
  RunReport report_;
};

}  // namespace perf
}  // namespace flashccl
