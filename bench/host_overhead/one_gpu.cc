#include "one_gpu.h"

#include <cstdint>

#include "runtime/comm_context.h"
#include "runtime/comm_table.h"
#include "base/config.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"
#include "topo/machine_table.h"
#include "transport/p2p/peer_memory.h"
#include "virtual_ranks.h"

namespace flashccl_bench {

namespace {

// Handles no allocator returns (odd, in the first page): they can never collide with a real
// communicator of this process.
ncclComm_t madeUpHandle(int rank) {
  return reinterpret_cast<ncclComm_t>(static_cast<uintptr_t>(0xf1a5c1 + 2 * rank));
}

}  // namespace

std::unique_ptr<OneGpuRanks> OneGpuRanks::create(size_t maxBytes, std::string* problem) {
  using flashccl::CommContext;
  std::unique_ptr<OneGpuRanks> made(new OneGpuRanks());
  made->ranks_ = flashccl::testing::VirtualRanks::create(kRanks);
  if (made->ranks_ == nullptr) {
    *problem = "virtual ranks: cannot lay out " + std::to_string(kRanks) +
               " ranks' buffers on device 0";
    return nullptr;
  }
  const flashccl::Config& config = flashccl::Config::get();
  const flashccl::SelectionTable& table =
      flashccl::selectionTableForThisMachine(kRanks, &made->selectionSource_);
  for (int rank = 0; rank < kRanks; ++rank) {
    void* send = nullptr;
    void* recv = nullptr;
    cudaError_t err = cudaMalloc(&send, maxBytes);
    if (err == cudaSuccess) err = cudaMalloc(&recv, maxBytes);
    // Zeros: any number of sums stays finite (as in TwoGpus).
    if (err == cudaSuccess) err = cudaMemset(send, 0, maxBytes);
    if (err == cudaSuccess) err = cudaMemset(recv, 0, maxBytes);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      *problem = std::string("virtual ranks: buffers: ") + cudaGetErrorString(err);
      return nullptr;
    }
    RankSlot& slot = made->slots_[rank];
    slot.comm = madeUpHandle(rank);
    slot.stream = made->ranks_->stream(rank);
    slot.send = static_cast<const float*>(send);
    slot.recv = static_cast<float*>(recv);

    // As runtime/comm_setup.cc arms a communicator, with VirtualRanks' memory in place of the
    // exchange through NCCL. The DeviceComm is adopted, not owned: VirtualRanks frees it.
    auto context = std::make_unique<CommContext>(slot.comm, rank, kRanks, /*cudaDev=*/0,
                                                 /*blocking=*/true);
    std::string warnings;
    context->attachSelector(flashccl::Selector::build(table, config.algo, kRanks, /*nnodes=*/1,
                                                      flashccl::resolveAlgorithm, &warnings));
    context->attachPeers(flashccl::PeerMemory::adopt(made->ranks_->comm(rank), nullptr));
    context->markReady();
    if (!warnings.empty()) made->selectionSource_ += "; warnings: " + warnings;
    flashccl::CommTable::instance().insert(std::move(context));
  }
  return made;
}

OneGpuRanks::~OneGpuRanks() {
  for (const RankSlot& slot : slots_) {
    if (slot.comm != nullptr) flashccl::CommTable::instance().remove(slot.comm);
    cudaFree(const_cast<float*>(slot.send));
    cudaFree(slot.recv);
  }
}

}  // namespace flashccl_bench
