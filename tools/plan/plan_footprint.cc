#include "plan/plan_footprint.h"

#include <cstdio>
#include <string>

#include "algo/algorithm.h"
#include "algo/driver_launch.h"
#include "base/coll_call.h"
#include "base/config.h"
#include "runtime/comm_context.h"
#include "runtime/described_comm.h"
#include "plan/plan_report.h"
#include "transport/p2p/buffer_layout.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

void printFootprint(int nranks, int nnodes, const Config& config, std::ostream& out) {
  out << "\nmemory per rank and GPU (docs/design.md, \"Memory grows with use\"):\n";
  const int localRanks = nnodes > 0 && nranks % nnodes == 0 ? nranks / nnodes : 0;
  BufferLayout full{}, small{};
  const char* why = nullptr;
  if (localRanks < 2 || !computeBufferLayout(peerLayoutRequest(config, localRanks), &full, &why)) {
    out << "  none: " << (why ? why : "fewer than 2 ranks per node") << "; every call goes to NCCL\n";
    return;
  }
  const size_t peers = static_cast<size_t>(localRanks - 1);
  const std::string fullText = formatSize(full.totalBytes) + " (LL " + formatSize(full.llSlotBytes) +
                               " per peer and parity, " + std::to_string(full.lanes) + " lanes x " +
                               std::to_string(full.slots) + " slots x " + formatSize(full.chunkBytes) + " chunks)";
  std::string fullBecause;
  if (config.smallCallBytes == 0) fullBecause = "FLASHCCL_SMALL_CALL_BYTES=0";
  else if (nnodes > 1) fullBecause = "the communicator spans nodes; its rails stage through as much again";
  else if (!computeSmallLayout(full, localRanks, config.smallCallBytes, &small, &why)) fullBecause = why;
  if (!fullBecause.empty()) {
    out << "  at set-up:   " << fullText << ": the full buffer, because " << fullBecause << "\n";
  } else {
    out << "  at set-up:   " << formatSize(small.totalBytes) << ": flags and call headers " << formatSize(small.llOffset)
        << ", LL slots 2 x " << peers << " x " << formatSize(small.llSlotBytes) << " (calls up to "
        << formatSize(config.smallCallBytes) << "), LL128 and chunk slots "
        << formatSize(small.totalBytes - small.ll128Offset) << "\n";
    out << "  grown:       + " << fullText << ", at the first call above " << formatSize(config.smallCallBytes)
        << " or streamed in chunks (the small buffer stays until destroy)\n";
    out << "               (an MSCCL program in the selection, or one thread driving several ranks, maps it at set-up)\n";
  }
  const size_t grownBytes = full.totalBytes + (fullBecause.empty() ? small.totalBytes : 0);
  out << "  FLASHCCL_MEMORY_LIMIT=" << formatSize(config.memoryLimitBytes) << " per process and GPU: "
      << config.memoryLimitBytes / grownBytes << " grown communicators of this size; the others keep their "
      << "large calls on NCCL\n";
}

void printGridBlocks(int nranks, int nnodes, std::ostream& out) {
  if (nnodes != 1) return;
  CommContext ctx(/*comm=*/nullptr, /*rank=*/0, nranks, /*cudaDev=*/-1, /*blocking=*/true);
  describeCommunicator(&ctx, nnodes);
  if (ctx.peers() == nullptr) return;
  const char* const names[] = {"allreduce_oneshot", "allreduce_twoshot", "allgather_direct", "reducescatter_direct"};
  out << "\ngrid blocks (512 threads) each built-in algorithm launches, float sum, H200 (132 SMs; packet kernels\n"
         "at most one block per SM, chunked kernels two), for the size of the call's largest buffer; '-': it does\n"
         "not take the call (counted from the algorithms' own launch code, nothing launched):\n";
  char line[160];
  std::snprintf(line, sizeof(line), "  %-10s", "size");
  out << line;
  for (const char* name : names) {
    std::snprintf(line, sizeof(line), " %21s", name);
    out << line;
  }
  out << "\n";
  for (size_t bytes : {size_t(4) << 10, size_t(64) << 10, size_t(1) << 20, size_t(32) << 20, size_t(256) << 20}) {
    std::snprintf(line, sizeof(line), "  %-10s", formatSize(bytes).c_str());
    out << line;
    for (const char* name : names) {
      Algorithm* algorithm = findBuiltinAlgorithm(name);
      CollCall call{};
      call.kind = algorithm ? algorithm->kind() : CollKind::kAllReduce;
      call.dtype = ncclFloat32;
      call.op = ncclSum;
      call.count = bytes / 4 / (call.kind == CollKind::kAllReduce ? 1 : static_cast<size_t>(nranks));
      char* base = reinterpret_cast<char*>(uintptr_t{1} << 40);
      call.send = base;
      call.recv = base + bytes;
      std::string cell = "-";
      if (algorithm != nullptr && call.count > 0 && algorithm->supports(call, ctx)) {
        LaunchCounter counter;
        const ncclResult_t launched = algorithm->launch(call, ctx);
        cell = launched != ncclSuccess || counter.launches() == 0 ? "?" : "";
        for (int i = 0; i < counter.launches() && launched == ncclSuccess; ++i) {
          cell += (i ? "+" : "") + std::to_string(counter.blocks()[i]);
        }
      }
      std::snprintf(line, sizeof(line), " %21s", cell.c_str());
      out << line;
    }
    out << "\n";
  }
}

}  // namespace flashccl
