#include "msccl/exec_image.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>
#include <utility>

#include "msccl/connections.h"
#include "transport/p2p/device_comm.h"

namespace flashccl::msccl {

namespace {

// Chunks one tb sends per launch: the cnt of every transmission that sends.
uint32_t chunksSentBy(const ThreadBlock& tb) {
  uint32_t chunks = 0;
  for (const Transmission& t : tb.transmissions) {
    if (stepSends(t.type)) chunks += static_cast<uint32_t>(t.count);
  }
  return chunks;
}

// Where each connection's stream starts inside its (sender, receiver) packet slot, in chunks:
// connections of one pair are stacked in channel order. Keyed by (channel, sender, receiver).
using StreamKey = std::pair<int, std::pair<int, int>>;

std::map<StreamKey, uint32_t> streamStarts(const Program& program, std::map<std::pair<int, int>, uint32_t>* pairTotals) {
  ConnectionTable table;
  std::vector<Diagnostic> ignored;
  buildConnectionTable(program, &table, &ignored);
  std::vector<Connection> connections = table.connections;
  std::sort(connections.begin(), connections.end(), [](const Connection& a, const Connection& b) {
    return std::make_tuple(a.sender, a.receiver, a.channel) < std::make_tuple(b.sender, b.receiver, b.channel);
  });
  std::map<StreamKey, uint32_t> starts;
  std::map<std::pair<int, int>, uint32_t> totals;
  for (const Connection& c : connections) {
    uint32_t& total = totals[{c.sender, c.receiver}];
    starts[{c.channel, {c.sender, c.receiver}}] = total;
    if (c.sendTb >= 0) total += chunksSentBy(program.gpus[c.sender].threadBlocks[c.sendTb]);
  }
  if (pairTotals) *pairTotals = std::move(totals);
  return starts;
}

template <typename T>
uint32_t appendArray(std::vector<char>* blob, const std::vector<T>& items) {
  const size_t offset = (blob->size() + 15) / 16 * 16;
  blob->resize(offset + items.size() * sizeof(T));
  if (!items.empty()) std::memcpy(blob->data() + offset, items.data(), items.size() * sizeof(T));
  return static_cast<uint32_t>(offset);
}

}  // namespace

ExecProgramFacts programFacts(const Program& program) {
  ExecProgramFacts facts;
  for (const Gpu& gpu : program.gpus) {
    facts.threadBlocks = std::max(facts.threadBlocks, static_cast<int>(gpu.threadBlocks.size()));
    facts.scratchChunks = std::max(facts.scratchChunks, gpu.scratchChunks);
    for (const ThreadBlock& tb : gpu.threadBlocks) {
      if (tb.sendPeer >= 0 || tb.recvPeer >= 0) facts.maxChannel = std::max(facts.maxChannel, tb.channel);
    }
  }
  std::map<std::pair<int, int>, uint32_t> totals;
  streamStarts(program, &totals);
  for (const auto& entry : totals) facts.maxPairStreamChunks = std::max(facts.maxPairStreamChunks, entry.second);
  return facts;
}

std::vector<char> buildExecImage(const Program& program, int rank, std::string* error) {
  if (rank < 0 || rank >= static_cast<int>(program.gpus.size())) {
    *error = "rank " + std::to_string(rank) + " is not in the program";
    return {};
  }
  const Gpu& gpu = program.gpus[rank];
  if (gpu.threadBlocks.size() > static_cast<size_t>(kMaxExecThreadBlocks)) {
    *error = std::to_string(gpu.threadBlocks.size()) + " thread blocks; the executor runs at most " +
             std::to_string(kMaxExecThreadBlocks);
    return {};
  }
  const std::map<StreamKey, uint32_t> starts = streamStarts(program, nullptr);
  auto startOf = [&](int channel, int sender, int receiver) -> uint32_t {
    auto it = starts.find({channel, {sender, receiver}});
    return it == starts.end() ? 0 : it->second;
  };

  std::vector<ExecThreadBlock> tbs;
  std::vector<ExecStep> steps;
  std::vector<ExecDependency> deps;
  std::vector<int16_t> reduceOffsets;
  for (const ThreadBlock& tb : gpu.threadBlocks) {
    ExecThreadBlock e{};
    e.stepBegin = static_cast<uint16_t>(steps.size());
    e.stepCount = static_cast<uint16_t>(tb.transmissions.size());
    e.sendPeer = static_cast<int8_t>(tb.sendPeer);
    e.recvPeer = static_cast<int8_t>(tb.recvPeer);
    e.channel = static_cast<uint16_t>(tb.channel);
    e.sendStreamChunk = tb.sendPeer >= 0 ? startOf(tb.channel, rank, tb.sendPeer) : 0;
    e.recvStreamChunk = tb.recvPeer >= 0 ? startOf(tb.channel, tb.recvPeer, rank) : 0;
    tbs.push_back(e);
    for (const Transmission& t : tb.transmissions) {
      ExecStep s{};
      s.type = static_cast<uint8_t>(t.type);
      s.srcBuf = static_cast<uint8_t>(t.srcBuf);
      s.dstBuf = static_cast<uint8_t>(t.dstBuf);
      s.count = static_cast<uint8_t>(t.count);
      s.srcOff = static_cast<int16_t>(t.srcOff);
      s.dstOff = static_cast<int16_t>(t.dstOff);
      s.publishStep = t.hasDep ? static_cast<int16_t>(t.step) : int16_t(-1);
      s.depBegin = static_cast<uint16_t>(deps.size());
      s.depCount = static_cast<uint8_t>(t.deps.size());
      for (const Dependency& d : t.deps) deps.push_back({static_cast<int16_t>(d.tb), static_cast<int16_t>(d.step)});
      s.reduceBegin = static_cast<uint16_t>(reduceOffsets.size());
      s.reduceCount = static_cast<uint8_t>(t.reduceSrcOffs.size());
      for (int off : t.reduceSrcOffs) reduceOffsets.push_back(static_cast<int16_t>(off));
      steps.push_back(s);
    }
    if (steps.size() > 65535 || deps.size() > 65535 || reduceOffsets.size() > 65535) {
      *error = "more than 65535 transmissions, dependencies or reduce sources in one rank";
      return {};
    }
  }

  std::vector<char> blob(sizeof(ExecImageHeader));
  ExecImageHeader header{};
  header.threadBlocks = static_cast<int32_t>(tbs.size());
  header.proto = static_cast<int32_t>(program.proto);
  header.nchunksperloop = program.nchunksperloop;
  header.threadBlockOffset = appendArray(&blob, tbs);
  header.stepOffset = appendArray(&blob, steps);
  header.dependencyOffset = appendArray(&blob, deps);
  header.reduceOffset = appendArray(&blob, reduceOffsets);
  header.totalBytes = static_cast<uint32_t>(blob.size());
  std::memcpy(blob.data(), &header, sizeof(header));
  return blob;
}

bool shapeCall(const Program& program, const ExecProgramFacts& facts, const BufferLayout& layout,
               size_t totalBytes, size_t elemBytes, size_t scratchCapacity, ExecCallShape* shape,
               const char** why) {
  const size_t chunks = static_cast<size_t>(program.nchunksperloop);
  if (elemBytes == 0 || chunks == 0 || totalBytes % (chunks * elemBytes) != 0) {
    *why = "count is not a multiple of the program's nchunksperloop";
    return false;
  }
  ExecCallShape s;
  s.chunkBytes = totalBytes / chunks;
  s.scratchBytes = s.chunkBytes * static_cast<size_t>(facts.scratchChunks);
  if (s.scratchBytes > scratchCapacity) {
    *why = "scratch needed exceeds the executor's scratch buffer";
    return false;
  }
  switch (program.proto) {
    case Protocol::kLL:
    case Protocol::kLL128: {
      const bool ll = program.proto == Protocol::kLL;
      const size_t stride = ll ? llChunkStride(s.chunkBytes) : ll128ChunkStride(s.chunkBytes);
      const size_t slot = ll ? layout.llSlotBytes : layout.ll128SlotBytes;
      if (stride * facts.maxPairStreamChunks > slot) {
        *why = "the message does not fit the packet slots in one launch";
        return false;
      }
      s.tileBytes = s.chunkBytes;
      s.iterations = 1;
      break;
    }
    case Protocol::kSimple: {
      if (facts.maxChannel >= kChannels * layout.lanes) {
        *why = "the program uses more channels than the buffer has chunk lanes";
        return false;
      }
      // Each piece of a chunk travels in one slot; tiles are whole elements.
      s.tileBytes = std::min(s.chunkBytes, layout.chunkBytes / elemBytes * elemBytes);
      if (s.tileBytes == 0) {
        *why = "chunk slots smaller than one element";
        return false;
      }
      const size_t iterations = (s.chunkBytes + s.tileBytes - 1) / s.tileBytes;
      if (iterations >= (1u << 16)) {
        *why = "too many iterations for the dependency flags";
        return false;
      }
      s.iterations = static_cast<uint32_t>(iterations);
      break;
    }
  }
  *shape = s;
  return true;
}

}  // namespace flashccl::msccl
