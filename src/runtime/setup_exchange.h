// All-gathers a small record among the ranks of one or more communicators through the real NCCL,
// so set-up needs no rendezvous of its own. Several communicators driven by one thread exchange
// in one NCCL group (their ranks may all live in this thread).
#pragma once

#include <cstddef>
#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

// For each context i: sends `recordBytes` at mine[i], receives nranks records into all[i]
// (resized). Blocks until done. Returns the real NCCL's error, if any.
ncclResult_t exchangeRecords(const std::vector<CommContext*>& ctxs, size_t recordBytes,
                             const std::vector<const void*>& mine,
                             std::vector<std::vector<char>>* all);

}  // namespace flashccl
