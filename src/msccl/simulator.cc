// The simulator's engine (simulator.h): thread blocks, connection FIFOs, flags, race detection.
#include "msccl/simulator.h"

#include "base/hash.h"

#include <algorithm>
#include <deque>
#include <memory>

#include "msccl/connections.h"

namespace flashccl::msccl {

namespace {

using Clock = std::vector<uint32_t>;  // vector clock, one entry per tb of the whole program
using ClockPtr = std::shared_ptr<const Clock>;

// Flags order (tile, step) lexicographically, as FLAG(w, iter, step) does in EX.
constexpr int64_t kFlagStride = int64_t{1} << 24;
int64_t flagOf(int tile, int step) { return tile * kFlagStride + step; }

struct Message {
  uint64_t value;
  ClockPtr clock;  // the sender's, when it sent
};

struct Fifo {
  std::deque<Message> messages;
  int sender = -1;  // global tb index
  int receiver = -1;
  int channel = 0;
  int senderRank = 0;
  int receiverRank = 0;
};

struct Publish {
  int64_t flag;
  ClockPtr clock;
};

struct TbState {
  int rank = 0;
  const ThreadBlock* block = nullptr;
  int sendFifo = -1;
  int recvFifo = -1;
  int tile = 0;
  size_t next = 0;  // transmission
  int chunk = 0;    // chunks of it done
  bool depsMet = false;
  bool done = false;
  Clock clock;
  std::vector<Publish> publishes;  // in order; flags strictly increase
  std::string blockedOn;
};

struct Access {
  int tb;  // global index
  uint32_t clock;
  int step;
  int line;
};

struct CellHistory {
  Access lastWrite{-1, 0, 0, 0};
  std::vector<Access> readsSinceWrite;  // at most one per tb: the latest
};

class Execution {
 public:
  Execution(const Program& program, const SimOptions& options, SimMemory* memory)
      : program_(program), options_(options), memory_(memory) {
    depth_ = options.connectionDepth > 0 ? options.connectionDepth
                                         : defaultConnectionDepth(program.proto);
  }

  SimResult run() {
    if (!setUp()) return result_;
    bool progressed = true;
    while (progressed && result_.status == SimResult::Status::kCompleted) {
      progressed = false;
      for (size_t g = 0; g < tbs_.size() && result_.status == SimResult::Status::kCompleted; ++g) {
        while (result_.status == SimResult::Status::kCompleted && advance(static_cast<int>(g))) {
          progressed = true;
        }
      }
    }
    if (result_.status != SimResult::Status::kCompleted) return result_;
    reportDeadlock();
    return result_;
  }

 private:
  bool fail(SimResult::Status status, int line, std::string message) {
    if (result_.status == SimResult::Status::kCompleted) {
      result_.status = status;
      result_.problem = {program_.file, line, std::move(message)};
    }
    return false;
  }

  bool setUp() {
    result_.status = SimResult::Status::kCompleted;
    if (memory_->layouts.size() != program_.gpus.size()) {
      return fail(SimResult::Status::kInvalid, program_.line, "memory does not match the program");
    }
    // What the connection table and the tb indexing below rely on; the validator checks it
    // with better messages before it ever simulates.
    const int n = static_cast<int>(program_.gpus.size());
    for (int r = 0; r < n; ++r) {
      const Gpu& gpu = program_.gpus[r];
      if (gpu.id != r) return fail(SimResult::Status::kInvalid, gpu.line, "gpu ids are not 0..n-1");
      for (size_t i = 0; i < gpu.threadBlocks.size(); ++i) {
        const ThreadBlock& tb = gpu.threadBlocks[i];
        if (tb.id != static_cast<int>(i) || tb.sendPeer < -1 || tb.sendPeer >= n ||
            tb.recvPeer < -1 || tb.recvPeer >= n || tb.sendPeer == r || tb.recvPeer == r) {
          return fail(SimResult::Status::kInvalid, tb.line, "thread block ids or peers are invalid");
        }
      }
    }
    ConnectionTable table;
    std::vector<Diagnostic> errors;
    buildConnectionTable(program_, &table, &errors);
    if (!errors.empty()) return fail(SimResult::Status::kInvalid, errors[0].line, errors[0].message);
    for (const Connection& c : table.connections) {
      Fifo f;
      f.channel = c.channel;
      f.senderRank = c.sender;
      f.receiverRank = c.receiver;
      fifos_.push_back(f);
    }
    for (const Gpu& gpu : program_.gpus) {
      firstTb_.push_back(static_cast<int>(tbs_.size()));
      for (const ThreadBlock& block : gpu.threadBlocks) {
        TbState s;
        s.rank = gpu.id;
        s.block = &block;
        s.sendFifo = table.sendConnection[gpu.id][block.id];
        s.recvFifo = table.recvConnection[gpu.id][block.id];
        tbs_.push_back(std::move(s));
      }
    }
    for (size_t g = 0; g < tbs_.size(); ++g) {
      TbState& s = tbs_[g];
      s.clock.assign(tbs_.size(), 0);
      if (s.sendFifo >= 0) fifos_[s.sendFifo].sender = static_cast<int>(g);
      if (s.recvFifo >= 0) fifos_[s.recvFifo].receiver = static_cast<int>(g);
      s.done = s.block->transmissions.empty() || memory_->tiles <= 0;
    }
    history_.resize(program_.gpus.size());
    for (size_t r = 0; r < program_.gpus.size(); ++r) history_[r].resize(memory_->cells[r].size());
    return true;
  }

  const Transmission& current(const TbState& s) const { return s.block->transmissions[s.next]; }

  // Does one thing for tb g if it can: satisfy its dependencies, move one chunk, or finish a
  // transmission. Returns whether it did.
  bool advance(int g) {
    TbState& s = tbs_[g];
    if (s.done) return false;
    const Transmission& t = current(s);
    if (!s.depsMet) {
      if (!dependenciesMet(g, t)) return false;
      s.depsMet = true;
      return true;
    }
    if (s.chunk < t.count) return moveChunk(g, t);
    if (t.hasDep) {
      ++s.clock[g];
      s.publishes.push_back({flagOf(s.tile, t.step), std::make_shared<Clock>(s.clock)});
    }
    s.chunk = 0;
    s.depsMet = false;
    if (++s.next == s.block->transmissions.size()) {
      s.next = 0;
      if (++s.tile == memory_->tiles) s.done = true;
    }
    return true;
  }

  bool dependenciesMet(int g, const Transmission& t) {
    TbState& s = tbs_[g];
    std::vector<const Publish*> found;
    for (const Dependency& d : t.deps) {
      if (d.tb < 0 || d.tb >= static_cast<int>(program_.gpus[s.rank].threadBlocks.size())) {
        return fail(SimResult::Status::kInvalid, t.line, formatString("depid=%d is out of range", d.tb));
      }
      const TbState& producer = tbs_[firstTb_[s.rank] + d.tb];
      int64_t goal = flagOf(s.tile, d.step);
      auto it = std::lower_bound(producer.publishes.begin(), producer.publishes.end(), goal,
                                 [](const Publish& p, int64_t v) { return p.flag < v; });
      if (it == producer.publishes.end()) {
        s.blockedOn = formatString("waits for tb %d step %d", d.tb, d.step);
        return false;
      }
      found.push_back(&*it);
    }
    // Synchronise with the earliest publication that satisfies each wait: that much ordering
    // holds in every schedule, which keeps race detection independent of this one.
    for (const Publish* p : found) join(&s.clock, *p->clock);
    return true;
  }

  static void join(Clock* into, const Clock& other) {
    for (size_t i = 0; i < into->size(); ++i) (*into)[i] = std::max((*into)[i], other[i]);
  }

  bool moveChunk(int g, const Transmission& t) {
    TbState& s = tbs_[g];
    const bool receives = stepReceives(t.type);
    const bool sends = stepSends(t.type);
    if (receives) {
      if (s.recvFifo < 0) {
        return fail(SimResult::Status::kInvalid, t.line, "a receiving step in a tb with recv=-1");
      }
      if (fifos_[s.recvFifo].messages.empty()) {
        const Fifo& f = fifos_[s.recvFifo];
        s.blockedOn = formatString("waits for data from gpu %d on channel %d", f.senderRank, f.channel);
        return false;
      }
    }
    if (sends) {
      if (s.sendFifo < 0) {
        return fail(SimResult::Status::kInvalid, t.line, "a sending step in a tb with send=-1");
      }
      if (static_cast<int>(fifos_[s.sendFifo].messages.size()) >= depth_) {
        const Fifo& f = fifos_[s.sendFifo];
        s.blockedOn = formatString("waits for room to send to gpu %d on channel %d",
                                   f.receiverRank, f.channel);
        return false;
      }
    }
    ++s.clock[g];
    uint64_t recvValue = 0;
    if (receives) {
      Message m = std::move(fifos_[s.recvFifo].messages.front());
      fifos_[s.recvFifo].messages.pop_front();
      join(&s.clock, *m.clock);
      recvValue = m.value;
    }
    const int c = s.chunk;
    uint64_t out = 0;
    bool ok = true;
    switch (t.type) {
      case StepType::kSend: ok = read(g, t, t.srcBuf, t.srcOff + c, &out); break;
      case StepType::kRecv: out = recvValue; ok = write(g, t, t.dstBuf, t.dstOff + c, out); break;
      case StepType::kRecvCopySend:
        out = recvValue;
        ok = write(g, t, t.dstBuf, t.dstOff + c, out);
        break;
      case StepType::kRecvReduceSend:
      case StepType::kRecvReduceCopy:
      case StepType::kRecvReduceCopySend: {
        uint64_t src = 0;
        ok = read(g, t, t.srcBuf, t.srcOff + c, &src);
        out = applySimOp(options_.op, recvValue, src);
        if (ok && t.type != StepType::kRecvReduceSend) ok = write(g, t, t.dstBuf, t.dstOff + c, out);
        break;
      }
      case StepType::kCopy: {
        // A copy onto itself (an in-place layout aliasing src and dst) changes nothing.
        if (cellOf(s.rank, t.srcBuf, t.srcOff + c) == cellOf(s.rank, t.dstBuf, t.dstOff + c)) break;
        ok = read(g, t, t.srcBuf, t.srcOff + c, &out) && write(g, t, t.dstBuf, t.dstOff + c, out);
        break;
      }
      case StepType::kReduce: {
        ok = read(g, t, t.dstBuf, t.dstOff + c, &out);
        for (size_t k = 0; ok && k < t.reduceSrcOffs.size(); ++k) {
          uint64_t src = 0;
          ok = read(g, t, t.srcBuf, t.reduceSrcOffs[k] + c, &src);
          out = applySimOp(options_.op, out, src);
        }
        if (ok) ok = write(g, t, t.dstBuf, t.dstOff + c, out);
        break;
      }
      case StepType::kNop: break;
    }
    if (!ok) return false;
    if (sends) {
      fifos_[s.sendFifo].messages.push_back({out, std::make_shared<Clock>(s.clock)});
    }
    ++s.chunk;
    return true;
  }

  // Index of a cell in the rank's memory, or -1 when the chunk is outside the buffer.
  long cellOf(int rank, BufferKind buf, int chunk) const {
    const RankLayout& l = memory_->layouts[rank];
    if (chunk < 0 || chunk >= l.chunks[static_cast<int>(buf)]) return -1;
    return static_cast<long>(l.chunkIndex(buf, chunk)) * memory_->tiles;
  }

  long cellFor(int g, BufferKind buf, int chunk) const {
    long c = cellOf(tbs_[g].rank, buf, chunk);
    return c < 0 ? -1 : c + tbs_[g].tile;
  }

  bool outOfRange(const Transmission& t, BufferKind buf, int chunk) {
    return fail(SimResult::Status::kInvalid, t.line,
                formatString("%c[%d] is outside the buffer", bufferLetter(buf), chunk));
  }

  bool orderedBefore(const Access& a, int g) const {
    return a.tb == g || a.clock <= tbs_[g].clock[a.tb];
  }

  bool race(int g, const Transmission& t, BufferKind buf, int chunk, const Access& other,
            const char* otherDoes, const char* thisDoes) {
    const TbState& s = tbs_[g];
    return fail(SimResult::Status::kDataRace, t.line,
                formatString("data race on gpu %d %c[%d]: tb %d step %d (line %d) %s it and tb %d "
                             "step %d (line %d) %s it, and no dependency or message orders them",
                             s.rank, bufferLetter(buf), chunk, tbs_[other.tb].block->id, other.step,
                             other.line, otherDoes, s.block->id, t.step, t.line, thisDoes));
  }

  bool read(int g, const Transmission& t, BufferKind buf, int chunk, uint64_t* value) {
    long cell = cellFor(g, buf, chunk);
    if (cell < 0) return outOfRange(t, buf, chunk);
    const TbState& s = tbs_[g];
    CellHistory& h = history_[s.rank][cell];
    if (h.lastWrite.tb >= 0 && !orderedBefore(h.lastWrite, g)) {
      return race(g, t, buf, chunk, h.lastWrite, "writes", "reads");
    }
    Access mine{g, s.clock[g], t.step, t.line};
    auto it = std::find_if(h.readsSinceWrite.begin(), h.readsSinceWrite.end(),
                           [g](const Access& a) { return a.tb == g; });
    if (it != h.readsSinceWrite.end()) {
      *it = mine;
    } else {
      h.readsSinceWrite.push_back(mine);
    }
    *value = memory_->cells[s.rank][cell];
    return true;
  }

  bool write(int g, const Transmission& t, BufferKind buf, int chunk, uint64_t value) {
    long cell = cellFor(g, buf, chunk);
    if (cell < 0) return outOfRange(t, buf, chunk);
    const TbState& s = tbs_[g];
    CellHistory& h = history_[s.rank][cell];
    if (h.lastWrite.tb >= 0 && !orderedBefore(h.lastWrite, g)) {
      return race(g, t, buf, chunk, h.lastWrite, "writes", "writes");
    }
    for (const Access& r : h.readsSinceWrite) {
      if (!orderedBefore(r, g)) return race(g, t, buf, chunk, r, "reads", "writes");
    }
    h.lastWrite = {g, s.clock[g], t.step, t.line};
    h.readsSinceWrite.clear();
    memory_->cells[s.rank][cell] = value;
    return true;
  }

  void reportDeadlock() {
    std::string text;
    int line = 0;
    int stuck = 0;
    for (const TbState& s : tbs_) {
      if (s.done) continue;
      const Transmission& t = current(s);
      if (stuck == 0) line = t.line;
      if (++stuck <= 8) {
        if (!text.empty()) text += "; ";
        text += formatString("gpu %d tb %d step %d (line %d) %s", s.rank, s.block->id, t.step,
                             t.line, s.blockedOn.c_str());
      }
    }
    if (stuck == 0) return;
    if (stuck > 8) text += formatString("; and %d more", stuck - 8);
    fail(SimResult::Status::kDeadlock, line,
         formatString("deadlock (connections buffering %d chunks): %s", depth_, text.c_str()));
  }

  const Program& program_;
  const SimOptions& options_;
  SimMemory* memory_;
  int depth_ = 1;
  SimResult result_;
  std::vector<TbState> tbs_;
  std::vector<int> firstTb_;  // per rank: global index of its tb 0
  std::vector<Fifo> fifos_;
  std::vector<std::vector<CellHistory>> history_;  // [rank][cell]
};

// splitmix64: the golden-ratio step, then the shared finalizer.
uint64_t splitmix(uint64_t x) { return mix64(x + 0x9e3779b97f4a7c15ull); }

}  // namespace

uint64_t applySimOp(SimOp op, uint64_t a, uint64_t b) {
  if (op == SimOp::kSum) return a + b;
  // Symmetric in (a, b), so op(a, b) == op(b, a) as for every NCCL op; hashing the ordered pair
  // makes op(op(a, b), c) differ from op(a, op(b, c)).
  uint64_t lo = std::min(a, b), hi = std::max(a, b);
  return splitmix(splitmix(lo) ^ (hi * 0x2545f4914f6cdd1dull));
}

int defaultConnectionDepth(Protocol proto) { return proto == Protocol::kSimple ? 2 : 8; }

SimResult simulate(const Program& program, const SimOptions& options, SimMemory* memory) {
  Execution exec(program, options, memory);
  return exec.run();
}

}  // namespace flashccl::msccl
