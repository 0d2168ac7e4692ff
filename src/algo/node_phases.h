// The intra-node phases of our kernels, as launch calls: the direct reduce-scatter and all-gather
// over a node's peer memory (node_blocks.h says where the blocks are) and the one-shot all-reduce.
// The one-node algorithms are these phases over whole blocks; the algorithms across nodes run
// them on windows, between NCCL's inter-node steps. Every call is one kernel with the launch
// protocol (device/launch_protocol.cuh): call headers are compared before any peer data is used.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "algo/node_blocks.h"
#include "algo/reduce_spec.h"
#include "transport/p2p/device_comm.h"

namespace flashccl {

// This rank's window of every group, reduced over the node's ranks in rank order, goes to
// out + g * blocks.ownGroupStride. `maxLanes` caps the chunked kernel's lanes (thread blocks per
// role). Small windows travel as LL packets, larger ones through the chunk slots.
cudaError_t launchNodeReduceScatter(const DeviceComm& comm, const NodeBlocks& blocks, const char* in, char* out,
                                    ncclDataType_t dtype, const ReduceSpec& spec, int maxLanes, cudaStream_t stream);

// This rank's window of every group (in + g * blocks.ownGroupStride) goes to its block in every
// rank's output. In place (in is this rank's window in out) it is not copied onto itself.
cudaError_t launchNodeAllGather(const DeviceComm& comm, const NodeBlocks& blocks, const char* in, char* out,
                                int maxLanes, cudaStream_t stream);

// One step: every rank's out = the fold of every rank's in, in rank order (LL packets). Only for
// what fits one LL slot (oneshotFits).
cudaError_t launchNodeAllReduceOneshot(const DeviceComm& comm, const char* in, char* out, size_t bytes,
                                       ncclDataType_t dtype, const ReduceSpec& spec, cudaStream_t stream);
bool oneshotFits(size_t bytes, const DeviceComm& comm);

// Whether a reduce-scatter or all-gather phase over `blocks` travels as LL packets (one kernel,
// one NVLink trip: every group's window fits one LL slot and FLASHCCL_LL_MAX_BYTES) rather than
// through the chunk slots.
bool phaseUsesPackets(const NodeBlocks& blocks, const DeviceComm& comm);

// Lanes the one-node algorithms give a direct kernel: the chunked block budget (launch_common.h:
// half of what fits on the GPU), one half per role.
int directKernelLanes(const DeviceComm& comm);

}  // namespace flashccl
