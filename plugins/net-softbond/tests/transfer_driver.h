// Drives one side of a connection through the ncclNet API the way NCCL's proxy does: at most
// `inflight` requests outstanding, a NULL request means "post again later", test() polled until
// done. Every received message is checked byte for byte (transfer_pattern.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nccl_net_abi.h"

namespace softbond_test {

struct TransferPlan {
  std::vector<size_t> sizes = {1 << 20};  // message i has sizes[i % sizes.size()] bytes
  size_t count = 1;
  int inflight = 8;            // NCCL keeps up to 8 (NCCL_STEPS) per connection
  uint64_t seed = 1;
  size_t recvExtra = 0;        // receive buffers this much larger than the message
  double deadlineSeconds = 60;
  // Throughput runs: fill each buffer once and skip the byte-by-byte check, so the figure is the
  // transport's and not the pattern generator's.
  bool check = true;
};

struct TransferResult {
  bool ok = false;
  bool timedOut = false;
  ncclResult_t error = ncclSuccess;
  size_t completed = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  double maxGapMs = 0;         // longest wait between two completions (after the first)
  std::string detail;          // what went wrong, for the test's message
};

size_t messageSize(const TransferPlan& plan, size_t index);

TransferResult runSender(ncclNet_v11_t* net, void* sendComm, const TransferPlan& plan);
TransferResult runReceiver(ncclNet_v11_t* net, void* recvComm, const TransferPlan& plan);

// listen + connect/accept on one thread, as both sides of one process. False (and *error) when
// no pair formed within the deadline.
bool connectPair(ncclNet_v11_t* net, void* context, int dev, void** sendComm, void** recvComm, std::string* error,
                 double deadlineSeconds = 20);

// "RESULT ok completed=.. bytes=.. seconds=.. max_gap_ms=.." -- the line softbond_peer prints.
std::string resultLine(const TransferResult& result);

}  // namespace softbond_test
