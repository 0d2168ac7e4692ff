// A CPU model of the executor: runs a Program on N ranks over host buffers, to prove what it
// computes and that it cannot hang, without a GPU.
//
// Model (msccl-format.md §2):
//  - Every chunk is cut into SimMemory::tiles tiles and the whole program runs once per tile, as the
//    kernel's gridOffset loop does; a cell is one (chunk, tile) and holds one uint64 value.
//  - Thread blocks run their transmissions in order. A transmission first waits for its
//    dependencies: tb X has published a flag >= (tile, step), flags being monotonic as in EX.
//    It then moves its chunks one at a time; a tb that publishes does so after its last chunk.
//  - Each connection (channel, sender -> receiver) is a FIFO holding at most `connectionDepth`
//    chunks: a chunk needing to send waits for room, one needing to receive waits for data.
//    One chunk per FIFO slot is the worst case (chunks larger than a tile: maxAllowedCount 1).
//  - Buffers are the executing rank's own, and in-place calls alias them (layoutProgram()).
//    A cpy whose source and destination are then the same memory is a no-op (an executor may
//    run it: it rewrites the same bytes).
//
// Each connection has one writer and one reader and flags only grow, so whether the program
// finishes does not depend on the order in which the simulator runs tbs; one run decides it.
// The same holds for values once there is no data race, and races are detected: conflicting
// accesses of one rank's cell by two tbs with no happens-before between them (program order,
// dependency flags, messages) are reported, with vector clocks, whatever the schedule.
//
// Reductions: re computes ((dst op s1) op s2) ...; rrs/rrc/rrcs compute op(recv, src).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "msccl/diagnostic.h"
#include "msccl/program.h"

namespace flashccl::msccl {

enum class Layout : int { kInPlace = 0, kOutOfPlace = 1 };
const char* layoutName(Layout layout);  // "in-place", "out-of-place"

enum class SimOp : int {
  // Wrapping uint64 addition: associative and commutative, so a correct program gives exactly
  // the expected value whatever order it reduces in.
  kSum = 0,
  // Commutative but not associative: two results are equal only if they were reduced in the
  // same tree, e.g. op(op(x0, x1), x2) on every rank.
  kOrderFingerprint = 1,
};
uint64_t applySimOp(SimOp op, uint64_t a, uint64_t b);

// Where one rank's buffers live in its memory, in chunks. In-place calls alias them as NCCL
// defines it (msccl-format.md §3): allreduce input == output; allgather input is the rank's slot
// of the output; reducescatter output is the rank's slot of the input.
struct RankLayout {
  int base[3] = {0, 0, 0};    // first memory chunk of input, output, scratch
  int chunks[3] = {0, 0, 0};  // their sizes
  int totalChunks = 0;

  int chunkIndex(BufferKind buf, int chunk) const { return base[static_cast<int>(buf)] + chunk; }
};

// Per rank. Buffer sizes follow the collective (allreduce: nchunksperloop chunks in and out;
// allgather: nchunksperloop/ngpus in; reducescatter: nchunksperloop/ngpus out), so a TL file
// that declares o_chunks=0 still gets its output; for collectives flashccl does not run they
// are the file's i/o_chunks. Scratch is s_chunks.
std::vector<RankLayout> layoutProgram(const Program& program, Layout layout);

// The memory of every rank: cells[rank][chunk * tiles + tile].
struct SimMemory {
  std::vector<RankLayout> layouts;
  int tiles = 1;
  std::vector<std::vector<uint64_t>> cells;

  SimMemory() = default;
  SimMemory(std::vector<RankLayout> rankLayouts, int tileCount);
  uint64_t& at(int rank, BufferKind buf, int chunk, int tile);
  uint64_t at(int rank, BufferKind buf, int chunk, int tile) const;
};

struct SimOptions {
  SimOp op = SimOp::kSum;
  // Chunks a connection buffers; 0: the protocol's depth (defaultConnectionDepth()).
  int connectionDepth = 0;
};

// What an NCCL connection buffers, in tiles: its 8-step FIFO holds 2 Simple tiles (4 steps
// each) and 8 LL or LL128 tiles (1 step each), msccl-format.md §2.1. An executor must buffer at
// least this much per connection for the deadlock check to hold.
int defaultConnectionDepth(Protocol proto);

struct SimResult {
  enum class Status { kCompleted, kDeadlock, kDataRace, kInvalid };
  Status status = Status::kInvalid;
  Diagnostic problem;  // set unless kCompleted
};

// Runs `program` on `memory` (sized by layoutProgram() for the layout meant). The program must
// have passed the validator's structural checks; anything else is reported as kInvalid rather
// than trusted.
SimResult simulate(const Program& program, const SimOptions& options, SimMemory* memory);

struct CollectiveCheck {
  bool ok = false;  // exact result on every rank; the input untouched out of place (it is const)
  bool identicalOnAllRanks = false;  // allreduce: the same reduction tree, hence the same bits
  bool rankOrder = false;  // every reduced value is op(...op(op(x0, x1), x2)..., x_{n-1})
  std::string report;      // what went wrong, or a short summary
};

// Fills every rank's input with distinct values per (rank, chunk, tile) and the other buffers
// with junk, runs the program in `layout` with kSum and with kOrderFingerprint, and checks the
// output of every rank against the collective. For allgather `identicalOnAllRanks` and
// `rankOrder` are trivially true. Collectives other than the three are reported as not checked.
CollectiveCheck checkCollective(const Program& program, Layout layout);

}  // namespace flashccl::msccl
