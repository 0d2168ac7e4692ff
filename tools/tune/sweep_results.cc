#include "sweep_results.h"

#include <algorithm>

namespace flashccl {
namespace tune {

namespace {

Timing timingOf(const perf::Spread& spread) { return {spread.median, spread.q1, spread.q3}; }

// The result of the first cycle for (collective, size, type, placement), or null.
const perf::SizeResult* findResult(const perf::RunReport& record, perf::Collective coll, size_t bytes,
                                   perf::DataType type, perf::Placement placement = perf::Placement::kOutOfPlace) {
  for (const perf::SizeResult& r : record.results)
    if (r.collective == coll && r.bytes == bytes && r.dataType == type && r.placement == placement && r.cycle == 0)
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
          case RunKind::kSelection:
            break;
        }
      }
      results.sizes.push_back(size);
    }
    all.push_back(results);
  }
  return all;
}

bool ranForcedAlgorithm(const std::string& algorithm) {
  return algorithm != "NCCL" && algorithm.find(" / ") == std::string::npos;
}

std::vector<SelectionSize> collectSelection(perf::Collective coll, const std::vector<size_t>& sizes,
                                            const std::vector<SweepRun>& runs,
                                            const std::vector<FlashcclAlgorithm>& algorithms) {
  std::vector<SelectionSize> all;
  for (size_t bytes : sizes) {
    SelectionSize size;
    size.bytes = bytes;
    for (const SelectionCondition& condition : selectionConditions()) {
      SizePoint point;
      point.bytes = bytes;
      for (const SweepRun& run : runs) {
        if (!run.outcome.haveRecord) continue;
        if (run.plan.kind != RunKind::kBaseline && run.plan.kind != RunKind::kFlashccl) continue;
        const perf::SizeResult* r = findResult(run.outcome.record, coll, bytes, condition.dataType, condition.placement);
        if (!r) continue;
        point.defaults.push_back(timingOf(r->timing.nccl));
        if (run.plan.kind != RunKind::kFlashccl) continue;
        const auto forced = run.plan.flashccl.find(coll);
        if (forced == run.plan.flashccl.end()) continue;
        for (size_t i = 0; i < algorithms.size(); ++i) {
          if (algorithms[i].collective != coll || algorithms[i].name != forced->second) continue;
          const bool right = !(r->checked && r->wrong > 0);
          point.candidates.push_back({int(i), timingOf(r->timing.flashccl), right && ranForcedAlgorithm(r->algorithm)});
        }
      }
      size.conditions.push_back(point);
    }
    all.push_back(size);
  }
  return all;
}

const FlashcclTiming* bestFlashccl(const SizeResults& size) {
  const FlashcclTiming* best = nullptr;
  for (const FlashcclTiming& f : size.flashccl) {
    // A forced algorithm flashccl could not run at this size forwarded to NCCL: not the algorithm's
    // time. flashccl's own choice counts either way (it is what flashccl would do), unless wrong.
    const bool ranIt = !f.forced || ranForcedAlgorithm(f.algorithm);
    if (f.wrong || !ranIt || f.timing.median <= 0) continue;
    if (!best || f.timing.median < best->timing.median) best = &f;
  }
  return best;
}

}  // namespace tune
}  // namespace flashccl
