// checkCollective() (simulator.h): what a program computes, against what its collective must.
#include <string>

#include "msccl/simulator.h"

namespace flashccl::msccl {

namespace {

constexpr int kTiles = 2;  // two loop iterations: exercises flags across iterations, stays cheap

uint64_t hashValue(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
  x ^= (c + 0x165667b19e3779f9ull) * 0xff51afd7ed558ccdull;
  x ^= (d + 0x27d4eb2f165667c5ull) * 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 29;
  return x;
}

// The input value of (rank, chunk, tile): distinct everywhere, so a value in the wrong place or
// a missing or doubled contribution shows.
uint64_t inputValue(int rank, int chunk, int tile) { return hashValue(1, rank, chunk, tile); }

// What the output buffers hold before the call: junk, distinct from every input.
uint64_t junkValue(int rank, long cell) { return hashValue(2, rank, static_cast<uint64_t>(cell), 0); }

// Input chunks of one rank, as the collective sizes them.
int inputChunksOf(const Program& p) {
  return p.coll == CollKind::kAllGather ? p.nchunksperloop / p.ngpus : p.nchunksperloop;
}
int outputChunksOf(const Program& p) {
  return p.coll == CollKind::kReduceScatter ? p.nchunksperloop / p.ngpus : p.nchunksperloop;
}

SimMemory initialMemory(const Program& program, Layout layout) {
  SimMemory mem(layoutProgram(program, layout), kTiles);
  for (size_t r = 0; r < mem.cells.size(); ++r) {
    for (size_t c = 0; c < mem.cells[r].size(); ++c) mem.cells[r][c] = junkValue(static_cast<int>(r), static_cast<long>(c));
  }
  for (int r = 0; r < program.ngpus; ++r) {
    for (int k = 0; k < inputChunksOf(program); ++k) {
      for (int t = 0; t < kTiles; ++t) mem.at(r, BufferKind::kInput, k, t) = inputValue(r, k, t);
    }
  }
  return mem;
}

// Every rank's contribution to input chunk `chunk`, reduced in rank order with `op`.
uint64_t rankOrderReduction(const Program& program, SimOp op, int chunk, int tile) {
  uint64_t acc = inputValue(0, chunk, tile);
  for (int r = 1; r < program.ngpus; ++r) acc = applySimOp(op, acc, inputValue(r, chunk, tile));
  return acc;
}

// The value output chunk `chunk` of `rank` must hold, reduced with `op` in rank order.
uint64_t expectedOutput(const Program& program, SimOp op, int rank, int chunk, int tile) {
  const int slot = program.nchunksperloop / program.ngpus;
  switch (*program.coll) {
    case CollKind::kAllReduce: return rankOrderReduction(program, op, chunk, tile);
    case CollKind::kAllGather: return inputValue(chunk / slot, chunk % slot, tile);
    case CollKind::kReduceScatter: return rankOrderReduction(program, op, rank * slot + chunk, tile);
  }
  return 0;
}

std::string describe(const Program& program, Layout layout) {
  return formatString("%s %s", layoutName(layout), program.collName.c_str());
}

}  // namespace

CollectiveCheck checkCollective(const Program& program, Layout layout) {
  CollectiveCheck check;
  if (!program.coll) {
    check.report = formatString("coll '%s' is not a collective flashccl runs; not checked",
                                program.collName.c_str());
    return check;
  }
  const bool slotted = program.coll != CollKind::kAllReduce;  // buffers cut into per-rank slots
  if (program.ngpus <= 0 || program.gpus.size() != static_cast<size_t>(program.ngpus) ||
      (slotted && program.nchunksperloop % program.ngpus != 0)) {
    check.report = "the program's shape is invalid; validate it first";
    return check;
  }

  // 1. Exact values, with a reduction that does not care about order.
  SimMemory initial = initialMemory(program, layout);
  SimMemory mem = initial;
  SimResult res = simulate(program, {SimOp::kSum, 0}, &mem);
  if (res.status != SimResult::Status::kCompleted) {
    check.report = res.problem.str();
    return check;
  }
  for (int r = 0; r < program.ngpus && check.report.empty(); ++r) {
    for (int k = 0; k < outputChunksOf(program) && check.report.empty(); ++k) {
      for (int t = 0; t < kTiles; ++t) {
        if (mem.at(r, BufferKind::kOutput, k, t) != expectedOutput(program, SimOp::kSum, r, k, t)) {
          check.report = formatString("the %s run leaves a wrong value in o[%d] of gpu %d",
                                      describe(program, layout).c_str(), k, r);
          break;
        }
      }
    }
  }
  if (layout == Layout::kOutOfPlace) {
    // NCCL's sendbuff is const: an out-of-place algorithm may not write it, even temporarily.
    for (int r = 0; r < program.ngpus && check.report.empty(); ++r) {
      for (int k = 0; k < inputChunksOf(program) && check.report.empty(); ++k) {
        for (int t = 0; t < kTiles; ++t) {
          if (mem.at(r, BufferKind::kInput, k, t) != initial.at(r, BufferKind::kInput, k, t)) {
            check.report = formatString("the %s run overwrites i[%d] of gpu %d, the caller's "
                                        "const send buffer", describe(program, layout).c_str(), k, r);
            break;
          }
        }
      }
    }
  }
  if (!check.report.empty()) return check;
  check.ok = true;

  // 2. The reduction trees, with a reduction that does care about order.
  SimMemory fp = initial;
  res = simulate(program, {SimOp::kOrderFingerprint, 0}, &fp);
  if (res.status != SimResult::Status::kCompleted) {  // cannot differ from the first run
    check.ok = false;
    check.report = res.problem.str();
    return check;
  }
  check.identicalOnAllRanks = true;
  check.rankOrder = true;
  for (int r = 0; r < program.ngpus; ++r) {
    for (int k = 0; k < outputChunksOf(program); ++k) {
      for (int t = 0; t < kTiles; ++t) {
        uint64_t v = fp.at(r, BufferKind::kOutput, k, t);
        if (program.coll == CollKind::kAllReduce && v != fp.at(0, BufferKind::kOutput, k, t)) {
          check.identicalOnAllRanks = false;
        }
        if (v != expectedOutput(program, SimOp::kOrderFingerprint, r, k, t)) check.rankOrder = false;
      }
    }
  }
  check.report = formatString("%s: correct on %d ranks%s%s", describe(program, layout).c_str(),
                              program.ngpus,
                              check.identicalOnAllRanks ? "" : ", reduced in a different order per rank",
                              check.rankOrder ? ", reduced in rank order" : "");
  return check;
}

}  // namespace flashccl::msccl
