// Weak stand-in for src/transport/p2p/peer_memory.cc (see README.md): CommContext's destructor
// needs PeerMemory's; the tests never create one.
#include "transport/p2p/peer_memory.h"

namespace flashccl {

// PeerMemory's private state is declared there too; an empty one is enough to destroy nothing.
struct PeerMemory::Impl {};

__attribute__((weak)) PeerMemory::~PeerMemory() {}

}  // namespace flashccl
