// The call header every kernel of ours announces to its peers (transport/p2p/device_comm.h):
// what every rank must agree on for one call. Built here from the application's call, and
// turned back into words for the WARN that names what each side called.
#pragma once

#include <cstdint>
#include <string>

#include "base/coll_call.h"
#include "transport/p2p/device_comm.h"

namespace flashccl {

// `sequence`: the call's number among all collective calls on the communicator (ours and the ones
// forwarded to NCCL). `algorithm`: the algorithm's number in the communicator's selection (the
// same on every rank: the selection itself is agreed at set-up), so ranks that would run
// different kernels for one call never pair up.
CallHeader makeCallHeader(const CollCall& call, uint64_t sequence, int algorithm);

// "AllReduce(1024 x float, sum)", "AllGather(1024 x float)".
std::string describeCallHeader(const CallHeader& header);

// The WARN line for a disagreement kernels recorded: the communicator, the sequence number and
// what each side called.
std::string describeMismatch(const void* comm, int rank, const DeviceErrorRecord& record);

}  // namespace flashccl
