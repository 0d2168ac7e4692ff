#include "msccl/validator.h"

#include <map>

#include "msccl/connections.h"
#include "msccl/decoder.h"
#include "msccl/dependency_cycles.h"
#include "msccl/simulator.h"

namespace flashccl::msccl {

namespace {

class Report {
 public:
  Report(const Program& program, int maxErrors, std::vector<Diagnostic>* out)
      : program_(program), maxErrors_(maxErrors), out_(out) {}

  void add(int line, std::string message) {
    if (static_cast<int>(out_->size()) < maxErrors_) out_->push_back({program_.file, line, std::move(message)});
  }
  void addAll(const std::vector<Diagnostic>& ds) {
    for (const Diagnostic& d : ds) add(d.line, d.message);
  }
  bool any() const { return !out_->empty(); }

 private:
  const Program& program_;
  int maxErrors_;
  std::vector<Diagnostic>* out_;
};

// --- 1. header and gpus ---------------------------------------------------------------------

void checkHeader(const Program& p, Report* r) {
  if (p.ngpus < 1) r->add(p.line, formatString("ngpus=%d must be at least 1", p.ngpus));
  if (p.nchannels < 1 || p.nchannels > kMaxChannels) {
    r->add(p.line, formatString("nchannels=%d is out of range (1..%d)", p.nchannels, kMaxChannels));
  }
  if (p.nchunksperloop < 1 || p.nchunksperloop > kMaxChunks) {
    r->add(p.line, formatString("nchunksperloop=%d is out of range (1..%d)", p.nchunksperloop, kMaxChunks));
  }
  if (p.minBytes < 0) r->add(p.line, formatString("minBytes=%lld is negative", (long long)p.minBytes));
  if (p.maxBytes < 0) r->add(p.line, formatString("maxBytes=%lld is negative", (long long)p.maxBytes));
  if (p.maxBytes > 0 && p.maxBytes < p.minBytes) {
    r->add(p.line, formatString("maxBytes=%lld is below minBytes=%lld", (long long)p.maxBytes,
                                (long long)p.minBytes));
  }
  if ((p.coll == CollKind::kAllGather || p.coll == CollKind::kReduceScatter) && p.ngpus >= 1 &&
      p.nchunksperloop % p.ngpus != 0) {
    r->add(p.line, formatString("nchunksperloop=%d is not a multiple of ngpus=%d (in %s, each "
                                "rank's share of the buffer is a whole number of chunks)",
                                p.nchunksperloop, p.ngpus, p.collName.c_str()));
  }
}

// The chunk count a buffer must have for the collective, as the MSCCL prototype checks it:
// `count * multiplier == nchunksperloop`, 0 allowed for a buffer the file does not use (TL's
// in-place files declare o_chunks=0). Returns the multiplier, or 0 for no check.
int chunkMultiplier(const Program& p, BufferKind buf, const char** why) {
  if (!p.coll) return 0;
  switch (*p.coll) {
    case CollKind::kAllReduce:
      *why = buf == BufferKind::kInput ? "an allreduce input is the whole buffer"
                                       : "an allreduce output is the whole buffer";
      return 1;
    case CollKind::kAllGather:
      *why = buf == BufferKind::kInput ? "an allgather input is 1/ngpus of the buffer"
                                       : "an allgather output is the whole buffer";
      return buf == BufferKind::kInput ? p.ngpus : 1;
    case CollKind::kReduceScatter:
      *why = buf == BufferKind::kInput ? "a reducescatter input is the whole buffer"
                                       : "a reducescatter output is 1/ngpus of the buffer";
      return buf == BufferKind::kInput ? 1 : p.ngpus;
  }
  return 0;
}

void checkGpus(const Program& p, Report* r) {
  std::map<int, int> seen;  // id -> line
  for (const Gpu& g : p.gpus) {
    if (g.id < 0 || g.id >= p.ngpus) {
      r->add(g.line, formatString("gpu id %d is out of range (ngpus=%d)", g.id, p.ngpus));
      continue;
    }
    auto [it, fresh] = seen.emplace(g.id, g.line);
    if (!fresh) r->add(g.line, formatString("gpu %d is described twice (first at line %d)", g.id, it->second));
    const struct { BufferKind buf; const char* attr; int value; } counts[] = {
        {BufferKind::kInput, "i_chunks", g.inputChunks},
        {BufferKind::kOutput, "o_chunks", g.outputChunks},
        {BufferKind::kScratch, "s_chunks", g.scratchChunks}};
    for (const auto& c : counts) {
      if (c.value < 0) {
        r->add(g.line, formatString("%s=%d is negative", c.attr, c.value));
        continue;
      }
      if (c.value > kMaxChunks) {
        r->add(g.line, formatString("%s=%d is too large (at most %d: the executor keeps chunk "
                                    "offsets in 16 bits)", c.attr, c.value, kMaxChunks));
        continue;
      }
      if (c.buf == BufferKind::kScratch || c.value == 0) continue;
      const char* why = "";
      int m = chunkMultiplier(p, c.buf, &why);
      if (m > 0 && static_cast<long long>(c.value) * m != p.nchunksperloop) {
        r->add(g.line, formatString("%s=%d is inconsistent with nchunksperloop=%d (%s: %s%s must "
                                    "equal nchunksperloop)",
                                    c.attr, c.value, p.nchunksperloop, why, c.attr,
                                    m == 1 ? "" : "*ngpus"));
      }
    }
  }
  for (int id = 0; id < p.ngpus && id < 4096; ++id) {
    if (!seen.count(id)) r->add(p.line, formatString("gpu %d is missing (ngpus=%d)", id, p.ngpus));
  }
}

// --- 2. thread blocks and steps --------------------------------------------------------------

void checkThreadBlockIds(const Program& p, const Gpu& g, const ValidationOptions& opt, Report* r) {
  const int n = static_cast<int>(g.threadBlocks.size());
  if (n > opt.maxThreadBlocksPerRank) {
    r->add(g.line, formatString("gpu %d has %d thread blocks; at most %d can be co-resident "
                                "(the executor needs all of them running at once)",
                                g.id, n, opt.maxThreadBlocksPerRank));
  }
  // Sorted by id (parser), so duplicates are neighbours and a gap shows as id != position.
  for (int i = 0; i < n; ++i) {
    const ThreadBlock& tb = g.threadBlocks[i];
    if (tb.id < 0) {
      r->add(tb.line, formatString("thread block id %d is negative", tb.id));
    } else if (i > 0 && g.threadBlocks[i - 1].id == tb.id) {
      r->add(tb.line, formatString("duplicate thread block id %d on gpu %d (first at line %d)", tb.id,
                                   g.id, g.threadBlocks[i - 1].line));
    }
  }
  int expected = 0;
  for (const ThreadBlock& tb : g.threadBlocks) {
    if (tb.id < expected) continue;  // negative or duplicate: reported above
    if (tb.id > expected) {
      r->add(tb.line, formatString("thread block %d of gpu %d is missing (ids must be 0..n-1)",
                                   expected, g.id));
      break;
    }
    ++expected;
  }
}

void checkPeersAndChannel(const Program& p, const Gpu& g, const ThreadBlock& tb, Report* r) {
  const struct { const char* what; int peer; } peers[] = {{"send", tb.sendPeer}, {"recv", tb.recvPeer}};
  for (const auto& pr : peers) {
    if (pr.peer == g.id) {
      r->add(tb.line, formatString("%s peer %d is the thread block's own rank", pr.what, pr.peer));
    } else if (pr.peer < -1 || pr.peer >= p.ngpus) {
      r->add(tb.line, formatString("%s peer %d is out of range (-1 or 0..%d)", pr.what, pr.peer,
                                   p.ngpus - 1));
    }
  }
  if (tb.channel < 0 || tb.channel >= p.nchannels) {
    r->add(tb.line, formatString("channel %d is out of range (nchannels=%d)", tb.channel, p.nchannels));
  }
}

void checkOperand(const Program& p, const Gpu& g, const Step& st, const char* role, BufferKind buf,
                  int off, Report* r) {
  const int n = g.chunks(buf);
  if (off < 0 || static_cast<long long>(off) + st.count > n) {
    r->add(st.line, formatString("%s %c[%d..%d] is out of range (%c_chunks=%d)", role,
                                 bufferLetter(buf), off, off + st.count - 1, bufferLetter(buf), n));
  }
}

void checkStep(const Program& p, const Gpu& g, const ThreadBlock& tb, size_t pos, Report* r) {
  const Step& st = tb.steps[pos];
  if (st.s != static_cast<int>(pos)) {
    r->add(st.line, formatString("step s=%d is at position %zu of its thread block (s must count "
                                 "the steps from 0, nops included)", st.s, pos));
  }
  if (st.type != StepType::kNop) {
    if (st.count < 0 || st.count > kMaxStepCount) {
      r->add(st.line, formatString("cnt=%d is out of range (0..%d)", st.count, kMaxStepCount));
    } else {
      if (stepReadsSource(st.type)) checkOperand(p, g, st, "source", st.srcBuf, st.srcOff, r);
      if (stepWritesDestination(st.type)) checkOperand(p, g, st, "destination", st.dstBuf, st.dstOff, r);
    }
    if (stepSends(st.type) && tb.sendPeer < 0) {
      r->add(st.line, formatString("step type '%s' sends, but the thread block has send=-1",
                                   stepTypeName(st.type)));
    }
    if (stepReceives(st.type) && tb.recvPeer < 0) {
      r->add(st.line, formatString("step type '%s' receives, but the thread block has recv=-1",
                                   stepTypeName(st.type)));
    }
  }
  // Dependencies.
  if (st.depTb == -1) return;
  const int ntbs = static_cast<int>(g.threadBlocks.size());
  if (st.depTb < -1 || st.depTb >= ntbs) {
    r->add(st.line, formatString("depid=%d is out of range (gpu %d has %d thread blocks)", st.depTb,
                                 g.id, ntbs));
    return;
  }
  const ThreadBlock& target = g.threadBlocks[st.depTb];
  const int nsteps = static_cast<int>(target.steps.size());
  if (st.depStep < 0 || st.depStep >= nsteps) {
    r->add(st.line, formatString("deps=%d is out of range (thread block %d has %d steps)", st.depStep,
                                 st.depTb, nsteps));
    return;
  }
  const Step& waited = target.steps[st.depStep];
  if (waited.type == StepType::kNop) {
    r->add(st.line, formatString("depends on tb %d step %d, a nop, which never publishes (line %d)",
                                 st.depTb, st.depStep, waited.line));
  } else if (!waited.hasDep) {
    r->add(st.line, formatString("depends on tb %d step %d, which has hasdep=0 and never "
                                 "publishes (line %d)", st.depTb, st.depStep, waited.line));
  }
}

void checkDecoding(const ThreadBlock& tb, Report* r) {
  std::vector<DecodeNote> notes;
  decodeThreadBlock(tb.steps, &notes);
  for (const DecodeNote& n : notes) {
    const Step& st = tb.steps[n.stepIndex];
    switch (n.issue) {
      case DecodeIssue::kNopWithoutDependency:
        r->add(st.line, "nop without a dependency (depid=-1): the executor drops it, and the step "
                        "numbers after it no longer match s");
        break;
      case DecodeIssue::kChainWithoutDependency:
        r->add(st.line, "the step after a chain of nops has depid=-1: a nop chain's last "
                        "dependency must be on the step it guards");
        break;
      case DecodeIssue::kNopInsideFusedReduction:
        r->add(st.line, "nop between fused re steps: the executor would wait for its dependency "
                        "only after the reduction");
        break;
      case DecodeIssue::kTrailingNop:
        r->add(st.line, "nop at the end of the thread block: its dependency is never waited for");
        break;
      case DecodeIssue::kFusedCountMismatch:
        r->add(st.line, formatString("this re fuses with the one before but has a different cnt "
                                     "(%d): the executor would run every source with the last cnt",
                                     st.count));
        break;
    }
  }
}

void checkThreadBlocks(const Program& p, const ValidationOptions& opt, Report* r) {
  for (const Gpu& g : p.gpus) {
    checkThreadBlockIds(p, g, opt, r);
    for (const ThreadBlock& tb : g.threadBlocks) {
      checkPeersAndChannel(p, g, tb, r);
      if (static_cast<int>(tb.steps.size()) > opt.maxStepsPerThreadBlock) {
        r->add(tb.line, formatString("thread block %d of gpu %d has %zu steps; the executor allows "
                                     "at most %d", tb.id, g.id, tb.steps.size(),
                                     opt.maxStepsPerThreadBlock));
      }
      for (size_t pos = 0; pos < tb.steps.size(); ++pos) checkStep(p, g, tb, pos, r);
      checkDecoding(tb, r);
    }
  }
}

// --- 5. running it -------------------------------------------------------------------------

void checkRuns(const Program& p, const ValidationOptions& opt, Report* r) {
  long tbs = 0, chunks = 0;
  for (const Gpu& g : p.gpus) tbs += static_cast<long>(g.threadBlocks.size());
  for (const RankLayout& l : layoutProgram(p, Layout::kOutOfPlace)) chunks += l.totalChunks;
  if (tbs > kMaxSimulatedThreadBlocks || chunks > kMaxSimulatedChunks) {
    r->add(p.line, formatString("too large to check by running it: %ld thread blocks and %ld "
                                "chunks over all ranks (at most %d and %ld)",
                                tbs, chunks, kMaxSimulatedThreadBlocks, kMaxSimulatedChunks));
    return;
  }
  std::vector<Layout> layouts;
  if (p.inplace) layouts.push_back(Layout::kInPlace);
  if (p.outofplace) layouts.push_back(Layout::kOutOfPlace);
  const bool claimsNone = layouts.empty();
  if (claimsNone) layouts.push_back(Layout::kOutOfPlace);  // never selected, but must not hang
  for (Layout layout : layouts) {
    SimMemory mem(layoutProgram(p, layout), 2);
    SimResult res = simulate(p, {SimOp::kSum, opt.connectionDepth}, &mem);
    if (res.status != SimResult::Status::kCompleted) {
      r->add(res.problem.line, formatString("%s (%s run)", res.problem.message.c_str(), layoutName(layout)));
      return;
    }
    if (!opt.checkResults || !p.coll || claimsNone) continue;
    CollectiveCheck check = checkCollective(p, layout);
    if (!check.ok) {
      r->add(p.line, formatString("wrong result: %s, but the file claims %s=1", check.report.c_str(),
                                  layout == Layout::kInPlace ? "inplace" : "outofplace"));
      return;
    }
  }
}

}  // namespace

ncclResult_t validateProgram(const Program& program, const ValidationOptions& options,
                             std::vector<Diagnostic>* errors) {
  errors->clear();
  Report report(program, options.maxErrors, errors);
  checkHeader(program, &report);
  checkGpus(program, &report);
  if (report.any()) return ncclInvalidUsage;

  checkThreadBlocks(program, options, &report);
  ConnectionTable table;
  std::vector<Diagnostic> found;
  if (!report.any()) {
    buildConnectionTable(program, &table, &found);
    report.addAll(found);
  }
  if (report.any()) return ncclInvalidUsage;

  found.clear();
  checkMessagePairing(program, table, &found);
  report.addAll(found);
  if (report.any()) return ncclInvalidUsage;

  found.clear();
  checkDependencyCycles(program, table, &found);
  report.addAll(found);
  if (report.any()) return ncclInvalidUsage;

  checkRuns(program, options, &report);
  return report.any() ? ncclInvalidUsage : ncclSuccess;
}

}  // namespace flashccl::msccl
