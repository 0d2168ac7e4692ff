#include "plan/plan_footprint.h"

#include <string>

#include "base/config.h"
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

}  // namespace flashccl
