// Peer memory for one communicator: our communication buffer, every peer's buffer mapped into
// this process (CUDA IPC between processes, plain peer pointers within one), the device-side
// counters, and the host-mapped error and abort words our kernels use.
//
// This layer only allocates, describes and maps. Which ranks take part, the exchange of the
// records between them and the agreement on a verdict belong to the runtime's set-up
// (runtime/peer_setup.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "transport/p2p/device_comm.h"

namespace flashccl {

struct Config;

// The buffer layout every communicator of `nranks` ranks uses with this configuration: a quarter
// of the buffer for LL packet slots, a sixteenth for LL128 lines (MSCCL programs only), four
// chunk slots per lane.
BufferLayoutRequest peerLayoutRequest(const Config& config, int nranks);

// What one rank publishes so its peers can map its buffer. Plain data: it travels through the
// set-up exchange byte for byte.
struct PeerRecord {
  uint32_t magic;
  uint32_t version;
  uint64_t hostIdentity;  // topo/host_identity.h: CUDA IPC needs one OS instance
  int32_t pid;
  int32_t cudaDev;
  cudaIpcMemHandle_t ipc;
  uint64_t bufferAddress;
  uint64_t bufferBytes;
  int32_t smCount;
  int32_t ok;             // 0: this rank could not allocate; `failure` says why
  char failure[96];
};

// Pinned host memory our kernels write and the host reads (mapped into the device): the error
// record and the progress words of DeviceComm.
struct PeerHostWords {
  DeviceErrorRecord error;
  uint64_t progress[2];
};

class PeerMemory {
 public:
  ~PeerMemory();
  PeerMemory(const PeerMemory&) = delete;
  PeerMemory& operator=(const PeerMemory&) = delete;

  // Allocates this rank's buffer (layout from `request`), counters and host words on `cudaDev`
  // and describes them in *record. On failure returns null and *record says why (ok = 0): the
  // rank still takes part in the exchange, so every rank reaches the same verdict.
  static std::unique_ptr<PeerMemory> allocate(int rank, int nranks, int cudaDev, const BufferLayoutRequest& request,
                                              PeerRecord* record);
  // The same with a layout computed already (computeSmallLayout: a communicator's first buffer).
  // `bufferBytes` is what the records compare: the full buffer's size, whichever is allocated.
  static std::unique_ptr<PeerMemory> allocate(int rank, int nranks, int cudaDev, const BufferLayout& layout,
                                              size_t bufferBytes, PeerRecord* record);

  // Growing to the full layout (docs/design.md, "Memory grows with use"), in steps every rank of
  // the communicator takes at the same call. allocateGrowth: this rank's new buffer, described in
  // *record (ok = 0 and why on failure). mapGrowth: every peer's new buffer, from the records all
  // ranks published; "" or why not. finishGrowth(true), once every rank has mapped: the kernels
  // launched from now on use the new buffers; finishGrowth(false): frees what the steps made. The
  // buffers used before stay mapped until the communicator is destroyed (a peer's kernel of the
  // call before may still write into them), so growing costs the small buffer once more.
  void allocateGrowth(const BufferLayout& layout, PeerRecord* record);
  std::string mapGrowth(const PeerRecord* records);
  void finishGrowth(bool commit);
  // Bytes of buffers this rank allocated for the communicator (what it costs on this GPU).
  size_t allocatedBytes() const;

  // Maps every peer's buffer from the records all ranks published (records[nranks]). Returns ""
  // or why it could not.
  std::string mapPeers(const PeerRecord* records);

  // The one real transfer that proves peer access (p2p_check.h): write now, verify after every
  // rank has written. Both return "" or why not.
  std::string writeP2pCheck();
  std::string verifyP2pCheck();

  // A PeerMemory that only describes: the layout and limits a set-up communicator of `nranks`
  // on GPUs with `smCount` multiprocessors would have, no memory behind it. `flashccl plan`
  // attaches it so supports() answers exactly as on a live communicator. Null when the buffer
  // cannot be laid out for that many ranks.
  static std::unique_ptr<PeerMemory> describeOnly(int rank, int nranks, int smCount, const BufferLayoutRequest& request);
  // What `live` would be once grown to `full` (same ranks, limits and mappings; the full layout),
  // no memory behind it: calls are routed on it while the buffer is small, so a call is judged
  // by the buffer it would run on (docs/design.md, "Memory grows with use").
  static std::unique_ptr<PeerMemory> describeGrown(const DeviceComm& live, const BufferLayout& full,
                                                   size_t bufferBytes);

  // A PeerMemory over buffers, counters and flags the caller allocated and frees: tests that run
  // every rank of a communicator on one GPU (tests/gpu/virtual_ranks.h). `hostWords`: the host
  // side of device.errorRecord / device.progress, or null.
  static std::unique_ptr<PeerMemory> adopt(const DeviceComm& device, PeerHostWords* hostWords);

  // What the kernels get as their argument.
  const DeviceComm& device() const { return device_; }
  size_t bufferBytes() const { return device_.bufferBytes; }

  // ncclSuccess, or the error a kernel reported: ncclInvalidUsage when ranks disagreed on a call.
  // Cheap: one read of pinned host memory.
  ncclResult_t asyncError() const;
  // What the kernel that reported an error recorded (code kDeviceErrorNone while none did).
  DeviceErrorRecord errorRecord() const;
  // The host side of DeviceComm::progress ([0] started, [1] completed), or null when there is
  // none (a descriptive or adopted PeerMemory without host words).
  const volatile uint64_t* progressWords() const;
  // The communicator ranks of the ranks here, in their order (one node's ranks on a communicator
  // across nodes): what errors name. Identity until set.
  void setWorldRanks(const std::vector<int>& worldRanks);
  // The call the next kernel launch carries (DeviceComm::callHeader, callSequence).
  void stampCall(const CallHeader& header, uint64_t sequence) {
    device_.callHeader = header;
    device_.callSequence = sequence;
  }
  // Makes every kernel of ours that waits on a peer return (ncclCommAbort, fatal errors).
  void abort();
  // Frees this rank's buffers and closes its mappings of the peers' (the memory returns once
  // every rank has done either this or its destroy). After abort(), on a communicator no kernel
  // of ours will run on again; cudaFree waits for the ones still leaving.
  void releaseBuffers();
  // Whether abort() was called (a host-side wait on the peers stops too).
  bool abortRequested() const;

 private:
  PeerMemory() = default;
  struct Resources;
  std::unique_ptr<Resources> resources_;
  DeviceComm device_{};
};

}  // namespace flashccl
