#include "runtime/described_comm.h"

#include "base/config.h"
#include "runtime/comm_context.h"
#include "runtime/node_rails.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

void describeCommunicator(CommContext* ctx, int nnodes) {
  constexpr int kHopperSmCount = 132;  // only bounds grids; plans do not depend on it
  if (nnodes < 1 || ctx->nranks % nnodes != 0) return;
  const int localRanks = ctx->nranks / nnodes;
  if (nnodes > 1 && localRanks < 2) return;
  std::unique_ptr<PeerMemory> peers =
      PeerMemory::describeOnly(0, localRanks, kHopperSmCount, peerLayoutRequest(Config::get(), localRanks));
  if (!peers) return;
  ctx->attachPeers(std::move(peers));
  if (nnodes == 1) return;
  NodeLayout layout;
  layout.nnodes = nnodes;
  layout.localRanks = localRanks;
  layout.nodeMajor = true;
  ctx->attachRails(NodeRails::describeOnly(layout, Config::get().bufferBytes));
}

}  // namespace flashccl
