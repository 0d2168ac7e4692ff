// The set-up protocol that gives communicators peer memory: every rank allocates and describes
// its side, the ranks exchange what they have and what they agreed to run, map the buffers of
// their node's ranks (CommContext::nodes: all ranks of a one-node communicator), prove the
// mapping with a real transfer, and agree on one verdict. All ranks of a communicator attach peer
// memory, or none does: a node whose memory fails takes every node back to NCCL.
#pragma once

#include <string>
#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

// Sets up peer memory for every context in `ctxs` (one thread may drive several GPUs; their
// exchanges form one NCCL group). Each context's selector must be attached already: ranks
// compare its fingerprint. On success each context gets its PeerMemory attached and its
// algorithms prepared. On a failure that all ranks agree on, `*verdict` explains it and nothing
// is attached; the return code is an error only when the real NCCL failed during the exchange.
ncclResult_t setUpPeerMemory(const std::vector<CommContext*>& ctxs, std::string* verdict);

}  // namespace flashccl
