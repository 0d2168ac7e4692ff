// Which operating-system instance this process runs in: host name and boot id, hashed. Two
// processes with the same identity share one kernel, which CUDA IPC between them needs; the
// set-up compares it so a communicator spanning hosts is never given peer memory across them.
#pragma once

#include <cstdint>
#include <string>

namespace flashccl {

uint64_t hostIdentity();

// Which node this process counts itself on when a communicator's ranks are grouped
// (topo/node_grouping.h): FLASHCCL_NODE_ID when set (`nodeIdOverride`, a testing override: ranks
// with equal values form a node), else the host identity. Never equal between an override and a
// host identity.
uint64_t nodeIdentity(const std::string& nodeIdOverride);

}  // namespace flashccl
