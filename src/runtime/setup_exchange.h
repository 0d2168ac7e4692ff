// All-gathers a small record among the ranks of one or more communicators through the real NCCL,
// so set-up needs no rendezvous of its own. Several communicators driven by one thread exchange
// in one NCCL group (their ranks may all live in this thread).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

// For each context i: sends `recordBytes` at mine[i], receives nranks records into all[i]
// (resized). Blocks until done. Returns the real NCCL's error, if any.
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
