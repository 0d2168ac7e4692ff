// Buffer layouts and memory of the simulator (simulator.h).
#include <algorithm>

#include "msccl/simulator.h"

namespace flashccl::msccl {

namespace {

constexpr int kIn = static_cast<int>(BufferKind::kInput);
constexpr int kOut = static_cast<int>(BufferKind::kOutput);
constexpr int kScratch = static_cast<int>(BufferKind::kScratch);

// Input and output sizes, in chunks, that the collective itself gives the buffers.
void collectiveBufferChunks(const Program& program, const Gpu& gpu, int* in, int* out) {
  const int whole = program.nchunksperloop;
  const int slot = program.ngpus > 0 ? whole / program.ngpus : 0;
  if (!program.coll) {
    *in = gpu.inputChunks;
    *out = gpu.outputChunks;
    return;
  }
  switch (*program.coll) {
    case CollKind::kAllReduce: *in = whole; *out = whole; return;
    case CollKind::kAllGather: *in = slot; *out = whole; return;
    case CollKind::kReduceScatter: *in = whole; *out = slot; return;
  }
}

}  // namespace

const char* layoutName(Layout layout) {
  return layout == Layout::kInPlace ? "in-place" : "out-of-place";
}

std::vector<RankLayout> layoutProgram(const Program& program, Layout layout) {
  std::vector<RankLayout> layouts;
  for (const Gpu& gpu : program.gpus) {
    RankLayout l;
    int in = 0, out = 0;
    collectiveBufferChunks(program, gpu, &in, &out);
    l.chunks[kIn] = in;
    l.chunks[kOut] = out;
    l.chunks[kScratch] = std::max(gpu.scratchChunks, 0);
    const int slot = program.ngpus > 0 ? program.nchunksperloop / program.ngpus : 0;
    if (layout == Layout::kOutOfPlace) {
      l.base[kIn] = 0;
      l.base[kOut] = in;
      l.base[kScratch] = in + out;
    } else if (program.coll == CollKind::kAllGather) {
      // sendbuff == recvbuff + rank*count
      l.base[kOut] = 0;
      l.base[kIn] = gpu.id * slot;
      l.base[kScratch] = out;
    } else if (program.coll == CollKind::kReduceScatter) {
      // recvbuff == sendbuff + rank*recvcount
      l.base[kIn] = 0;
      l.base[kOut] = gpu.id * slot;
      l.base[kScratch] = in;
    } else {
      // sendbuff == recvbuff
      l.base[kIn] = 0;
      l.base[kOut] = 0;
      l.base[kScratch] = std::max(in, out);
    }
    l.totalChunks = l.base[kScratch] + l.chunks[kScratch];
    layouts.push_back(l);
  }
  return layouts;
}

SimMemory::SimMemory(std::vector<RankLayout> rankLayouts, int tileCount)
    : layouts(std::move(rankLayouts)), tiles(tileCount) {
  for (const RankLayout& l : layouts) {
    cells.emplace_back(static_cast<size_t>(l.totalChunks) * static_cast<size_t>(tiles), 0);
  }
}

uint64_t& SimMemory::at(int rank, BufferKind buf, int chunk, int tile) {
  return cells[rank][static_cast<size_t>(layouts[rank].chunkIndex(buf, chunk)) * tiles + tile];
}

uint64_t SimMemory::at(int rank, BufferKind buf, int chunk, int tile) const {
  return cells[rank][static_cast<size_t>(layouts[rank].chunkIndex(buf, chunk)) * tiles + tile];
}

}  // namespace flashccl::msccl
