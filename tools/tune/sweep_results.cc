#include "sweep_results.h"

#include <algorithm>

namespace flashccl {
namespace tune {

namespace {

Timing timingOf(const perf::Spread& spread) { return {spread.median, spread.q1, spread.q3}; }

// The out-of-place result of the first cycle for (collective, size, type), or null.
const perf::SizeResult* findResult(const perf::RunReport& record, perf::Collective coll, size_t bytes,
                                   perf::DataType type) {
  for (const perf::SizeResult& r : record.results)
    if (r.collective == coll && r.bytes == bytes && r.dataType == type &&
        r.placement == perf::Placement::kOutOfPlace && r.cycle == 0)
      return &r;
  return nullptr;
}

bool refusedIn(const RunOutcome& outcome, perf::Collective coll) {
  for (const UnavailableChoice& u : outcome.log.unavailable) {
    perf::Collective named;
    if (perf::parseCollective(u.collective, &named) && named == coll) return true;
  }
  return false;
}

}  // namespace

std::vector<CollectiveResults> collectResults(const std::vector<perf::Collective>& collectives,
                                              const std::vector<size_t>& sizes, perf::DataType dataType,
                                              const std::vector<SweepRun>& runs) {
  std::vector<CollectiveResults> all;
  for (perf::Collective coll : collectives) {
    CollectiveResults results;
    results.collective = coll;
    for (const SweepRun& run : runs)
      if (run.plan.kind == RunKind::kChoice && refusedIn(run.outcome, coll))
        results.refused.push_back(run.plan.candidate);
    for (size_t bytes : sizes) {
      SizeResults size;
      size.bytes = bytes;
      size.point.bytes = bytes;
      for (const SweepRun& run : runs) {
        if (!run.outcome.haveRecord) continue;
        const perf::SizeResult* r = findResult(run.outcome.record, coll, bytes, dataType);
        if (!r) continue;
        const bool wrong = r->checked && r->wrong > 0;
        switch (run.plan.kind) {
          case RunKind::kBaseline:
            size.point.defaults.push_back(timingOf(r->timing.nccl));
            size.flashccl.push_back({r->algorithm, timingOf(r->timing.flashccl), false, wrong});
            break;
          case RunKind::kFlashccl:
            size.point.defaults.push_back(timingOf(r->timing.nccl));
            size.flashccl.push_back({r->algorithm, timingOf(r->timing.flashccl), true, wrong});
            break;
          case RunKind::kChoice: {
            const bool refused = std::count(results.refused.begin(), results.refused.end(), run.plan.candidate) > 0;
            size.point.candidates.push_back({run.plan.candidate, timingOf(r->timing.nccl), !refused});
            break;
          }
          case RunKind::kWithTable:
            size.haveWithTable = true;
            size.withTable = timingOf(r->timing.nccl);
            break;
          case RunKind::kVerify:
            break;
        }
      }
      results.sizes.push_back(size);
    }
    all.push_back(results);
  }
  return all;
}

const FlashcclTiming* bestFlashccl(const SizeResults& size) {
  const FlashcclTiming* best = nullptr;
  for (const FlashcclTiming& f : size.flashccl) {
    // A forced algorithm flashccl could not run at this size forwarded to NCCL: not the algorithm's
    // time. flashccl's own choice counts either way (it is what flashccl would do), unless wrong.
    const bool ranIt = !f.forced || (f.algorithm != "NCCL" && f.algorithm.find(" / ") == std::string::npos);
    if (f.wrong || !ranIt || f.timing.median <= 0) continue;
    if (!best || f.timing.median < best->timing.median) best = &f;
  }
  return best;
}

}  // namespace tune
}  // namespace flashccl
