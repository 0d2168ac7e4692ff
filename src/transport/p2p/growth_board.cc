#include "transport/p2p/growth_board.h"

namespace flashccl {

std::unique_ptr<GrowthBoard> GrowthBoard::open(const std::string& name, int nranks, std::string* why) {
  if (nranks < 1 || nranks > kMaxPeerRanks) {
    *why = "growth board: bad name or rank count";
    return nullptr;
  }
  std::unique_ptr<NodeBoard> board = NodeBoard::open(name, nranks, /*create=*/true, why);
  if (!board) return nullptr;
  return std::unique_ptr<GrowthBoard>(new GrowthBoard(std::move(board)));
}

}  // namespace flashccl
