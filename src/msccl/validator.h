// Everything that makes a parsed Program safe to run (msccl-format.md §1-§2), each problem with
// its own `file:line: what is wrong`.
//
// In order, stopping after the first group that finds something (later checks rely on earlier):
//  1. the header and the gpus: ranges, ids 0..ngpus-1, chunk counts against nchunksperloop;
//  2. thread blocks and steps: dense tb ids, co-residency, peers, channels, one tb per
//     connection, s == position, step count, cnt, chunk bounds of the operands each step type
//     uses, sends/receives with a peer, nop chains and re fusion (decoder.h), dependency ranges,
//     and dependencies on steps that publish (hasdep=1, not a nop);
//  3. send/receive pairing between ranks (connections.h);
//  4. dependency cycles, within and across ranks (dependency_cycles.h);
//  5. running it (simulator.h) in every layout it claims: deadlocks with NCCL-sized connection
//     buffers, data races, and, for allreduce/allgather/reducescatter, that it computes the
//     collective on every rank.
#pragma once

#include <nccl.h>

#include <vector>

#include "msccl/diagnostic.h"
#include "msccl/program.h"

namespace flashccl::msccl {

struct ValidationOptions {
  // Executor blocks spin on each other's flags and there is no cooperative launch, so every
  // block of a launch must be resident at once or the launch can hang. One block fills an SM
  // (640 threads, large shared memory); H100/H200 have 132 SMs. 108 (also the A100's SM count
  // and the MSCCL prototype's limit) leaves 24 SMs for what else runs on the GPU: compute on
  // other streams, NCCL's own kernels.
  int maxThreadBlocksPerRank = 108;
  // EX MSCCL_MAX_NUM_STEPS. A flag packs (launch, iteration, step) with this many steps per
  // iteration, so a larger s would read as a later iteration and release waiters too early.
  int maxStepsPerThreadBlock = 64;
  // Chunks a connection buffers in the deadlock check; 0: the protocol's NCCL depth
  // (defaultConnectionDepth() in simulator.h). An executor must buffer at least this much.
  int connectionDepth = 0;
  // Simulate the claimed layouts and require the right result (allreduce, allgather,
  // reducescatter). Deadlock and race checks run regardless.
  bool checkResults = true;
  // Stop collecting after this many.
  int maxErrors = 20;
};

// The largest cnt of one step (EX MSCCL_MAX_COUNT is 72, exclusive).
constexpr int kMaxStepCount = 71;
// Channels the executor has (EX MAXCHANNELS).
constexpr int kMaxChannels = 32;
// Chunk offsets are 16-bit in the executor's transmissions (EX mscclTransmission), so no buffer
// may have more chunks than this.
constexpr int kMaxChunks = 32768;
// The run checks keep a vector clock per thread block and a cell per (chunk, tile): bounded so
// that a hostile file cannot make validation take the process's memory. Real files are far
// below (8 GPUs x 32 thread blocks, a few thousand chunks).
constexpr int kMaxSimulatedThreadBlocks = 4096;
constexpr long kMaxSimulatedChunks = 1L << 20;

// ncclSuccess when the program is valid, ncclInvalidUsage otherwise, with *errors filled.
ncclResult_t validateProgram(const Program& program, const ValidationOptions& options,
                             std::vector<Diagnostic>* errors);

}  // namespace flashccl::msccl
