// Weak stand-in for src/core/comm_context.cc (see README.md): only stores its arguments.
#include "core/comm_context.h"
#include "select/selector.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl {

__attribute__((weak)) CommContext::CommContext(ncclComm_t comm, int rank, int nranks, int cudaDev,
                                               bool blocking)
    : comm(comm), rank(rank), nranks(nranks), cudaDev(cudaDev), blocking(blocking) {}

__attribute__((weak)) CommContext::~CommContext() {}

}  // namespace flashccl
