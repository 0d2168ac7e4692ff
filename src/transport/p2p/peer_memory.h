// Peer memory for one communicator: our communication buffer, every peer's buffer mapped into
// this process (CUDA IPC between processes, plain peer pointers within one), the device-side
// sequence counters, and the host-mapped error and abort words our kernels use.
//
// Set up through the real NCCL (an all-gather of handles on the communicator itself), verified
// with a real transfer, freed on destroy/abort.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nccl.h>

#include "transport/p2p/device_comm.h"

namespace flashccl {

class CommContext;
struct Config;

// The buffer layout every communicator of `nranks` ranks uses with this configuration.
BufferLayoutRequest peerLayoutRequest(const Config& config, int nranks);

class PeerMemory {
 public:
  ~PeerMemory();
  PeerMemory(const PeerMemory&) = delete;
  PeerMemory& operator=(const PeerMemory&) = delete;

  // Sets up peer memory for every context in `ctxs` (one thread may drive several GPUs; their
  // exchanges form one NCCL group). Each context's selector must be attached already: ranks
  // compare its fingerprint. On success each context gets its PeerMemory attached. On a failure
  // that all ranks agree on, `*verdict` explains it and nothing is attached; the return code is an
  // error only when the real NCCL failed during the exchange.
  static ncclResult_t setUp(const std::vector<CommContext*>& ctxs, std::string* verdict);

  // A PeerMemory that only describes: the layout and limits a set-up communicator of `nranks`
  // on GPUs with `smCount` multiprocessors would have, no memory behind it. `flashccl plan`
  // attaches it so supports() answers exactly as on a live communicator. Null when the buffer
  // cannot be laid out for that many ranks.
  static std::unique_ptr<PeerMemory> describeOnly(int rank, int nranks, int smCount);

  // A PeerMemory over buffers, counters and flags the caller allocated and frees: tests that run
  // every rank of a communicator on one GPU (tests/gpu/virtual_ranks.h).
  static std::unique_ptr<PeerMemory> adopt(const DeviceComm& device);

  // What the kernels get as their argument.
  const DeviceComm& device() const { return device_; }
  size_t bufferBytes() const { return device_.bufferBytes; }

  // ncclSuccess, or the error a kernel reported: ncclInvalidUsage when ranks disagreed on a call
  // (count, type or op). Cheap: one read of pinned host memory.
  ncclResult_t asyncError() const;
  // The call the next kernel launch carries (DeviceComm::callIndex / callSignature).
  void stampCall(uint64_t index, uint64_t signature) {
    device_.callIndex = index;
    device_.callSignature = signature;
  }
  // Makes every kernel of ours that waits on a peer return (ncclCommAbort, fatal errors).
  void abort();

 private:
  PeerMemory() = default;

 public:
  struct Impl;  // public so set-up helpers in peer_memory.cc can fill it

 private:
  std::unique_ptr<Impl> impl_;
  DeviceComm device_{};
};

}  // namespace flashccl
