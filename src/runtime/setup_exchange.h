// All-gathers a small record among the ranks of one or more communicators: through the real NCCL
// (one NCCL group: a thread may drive several ranks), so set-up needs no rendezvous of its own;
// after the first round, a one-node communicator whose ranks share /dev/shm trades them on rank
// 0's node board instead (CommContext::setupBoard, node_setup.h): host memory, microseconds,
// where a round through NCCL costs a kernel on every rank (milliseconds on a shared GPU).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

// For each context i: sends `recordBytes` at mine[i], receives nranks records into all[i]
// (resized). Blocks until done. Returns the real NCCL's error, if any, or ncclSystemError when a
// rank did not post on the board within FLASHCCL_HANG_TIMEOUT (480 s when 0).
ncclResult_t exchangeRecords(const std::vector<CommContext*>& ctxs, size_t recordBytes,
                             const std::vector<const void*>& mine,
                             std::vector<std::vector<char>>* all);

// One verdict round: each rank publishes its failure for ctxs[i] (mine[i], "" when fine) and
// (*agreed)[i] becomes the first failure any rank of that communicator published, in rank order,
// or "": every rank ends up with the same words. Failures are cut to about 120 characters.
ncclResult_t agreeOnFailures(const std::vector<CommContext*>& ctxs, const std::vector<std::string>& mine,
                             std::vector<std::string>* agreed);

// Polls the real NCCL until `comm` is no longer in progress (a non-blocking communicator, or a
// group on one that returned ncclInProgress); returns its state then.
ncclResult_t waitWhileInProgress(ncclComm_t comm);

}  // namespace flashccl
