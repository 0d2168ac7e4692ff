// Which operating-system instance this process runs in: host name and boot id, hashed. Two
// processes with the same identity share one kernel, which CUDA IPC between them needs; the
// set-up compares it so a communicator spanning hosts is never given peer memory.
#pragma once

#include <cstdint>

namespace flashccl {

uint64_t hostIdentity();

}  // namespace flashccl
