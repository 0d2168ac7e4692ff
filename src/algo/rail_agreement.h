// How ranks on different nodes compare their calls (the cross-node part of the call agreement in
// device/launch_protocol.cuh). Every call across nodes stamps this rank's call record on the rail
// stream before its first inter-node step; that step gathers the records of the whole rail with
// NCCL, in the same NCCL group as its data; and the first launch of ours after the step gets them
// (withRailRecords) and compares them before it consumes anything. A disagreement stops every
// rank of both nodes at that launch: the ones that saw it, and through the header they announce,
// their peers on the node.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "algo/hierarchy.h"
#include "transport/p2p/device_comm.h"

namespace flashccl {

// Writes {header, worldRank} into h.records[0], on the rail stream. A kernel, so a captured graph
// replays the header it was captured with, as our kernels do.
ncclResult_t stampCallRecord(const Hierarchy& h, const CallHeader& header);

// The node's DeviceComm for the launch after a call's first inter-node step: it carries the
// rail's gathered records.
DeviceComm withRailRecords(const DeviceComm& comm, const Hierarchy& h);

// One launch that does nothing but compare (the node's call headers, the rail records): for an
// algorithm whose last step is NCCL's, so the comparison still happens on every rank.
cudaError_t launchRailCheckpoint(const DeviceComm& comm, cudaStream_t stream);

}  // namespace flashccl
