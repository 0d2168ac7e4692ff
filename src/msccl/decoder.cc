#include "msccl/decoder.h"

namespace flashccl::msccl {

namespace {

void note(std::vector<DecodeNote>* notes, DecodeIssue issue, size_t index) {
  if (notes) notes->push_back({issue, static_cast<int>(index)});
}

// Whether step `st` continues the fused reduction that `open` (the last transmission) started.
bool continuesReduction(const Transmission* open, const Step& st) {
  return open != nullptr && st.type == StepType::kReduce && st.depTb == -1 &&
         open->dstBuf == st.dstBuf && open->dstOff == st.dstOff && open->srcBuf == st.srcBuf;
}

}  // namespace

std::vector<Transmission> decodeThreadBlock(const std::vector<Step>& steps,
                                            std::vector<DecodeNote>* notes) {
  std::vector<Transmission> out;
  std::vector<Dependency> pending;  // from nops, waiting for the next transmission
  int pendingFirstStep = -1;        // s of the first nop on the pending list
  size_t pendingFirstIndex = 0;
  // The fused reduction still open for more re steps: -1 when the last transmission is not a
  // re, published (hasdep=1), or full. An index into `out`, since `out` reallocates.
  int openReduction = -1;

  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& st = steps[i];
    if (st.type == StepType::kNop) {
      if (st.depTb < 0) {
        note(notes, DecodeIssue::kNopWithoutDependency, i);
        continue;
      }
      if (pending.empty()) {
        pendingFirstStep = st.s;
        pendingFirstIndex = i;
      }
      pending.push_back({st.depTb, st.depStep});
      continue;  // a nop never touches the open reduction (EX skips everything for nops)
    }

    const Transmission* open = openReduction >= 0 ? &out[static_cast<size_t>(openReduction)] : nullptr;
    if (continuesReduction(open, st)) {
      if (!pending.empty()) note(notes, DecodeIssue::kNopInsideFusedReduction, pendingFirstIndex);
      Transmission& t = out[static_cast<size_t>(openReduction)];
      if (t.count != st.count) note(notes, DecodeIssue::kFusedCountMismatch, i);
      t.reduceSrcOffs.push_back(st.srcOff);
      t.step = st.s;
      t.hasDep = st.hasDep;
      // The limit is per transmission, as the reference describes it. (EX compares a counter of
      // all re sources of the tb so far with 16, so from the 17th on it would fuse without
      // limit and overflow its kernel's source array; no generator emits such a tb.)
      if (st.hasDep || static_cast<int>(t.reduceSrcOffs.size()) >= kMaxReduceFusion) {
        openReduction = -1;
      }
      continue;
    }

    Transmission t;
    t.type = st.type;
    t.firstStep = pending.empty() ? st.s : pendingFirstStep;
    t.step = st.s;
    t.hasDep = st.hasDep;
    t.deps = pending;
    if (st.depTb >= 0) {
      t.deps.push_back({st.depTb, st.depStep});
    } else if (!pending.empty()) {
      note(notes, DecodeIssue::kChainWithoutDependency, i);
    }
    pending.clear();
    t.srcBuf = st.srcBuf;
    t.srcOff = st.srcOff;
    t.dstBuf = st.dstBuf;
    t.dstOff = st.dstOff;
    t.count = st.count;
    t.line = st.line;
    if (st.type == StepType::kReduce) t.reduceSrcOffs.push_back(st.srcOff);
    out.push_back(std::move(t));
    openReduction = (st.type == StepType::kReduce && !st.hasDep) ? static_cast<int>(out.size()) - 1 : -1;
  }
  if (!pending.empty()) note(notes, DecodeIssue::kTrailingNop, pendingFirstIndex);
  return out;
}

}  // namespace flashccl::msccl
