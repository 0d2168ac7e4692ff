#include "algo/node_phases.h"

#include "algo/launch_common.h"
#include "base/config.h"
#include "transport/p2p/buffer_layout.h"

namespace flashccl {

bool phaseUsesPackets(const NodeBlocks& blocks, const DeviceComm& comm) {
  const size_t groups = static_cast<size_t>(blocks.groups);
  const size_t packetBytes = (blocks.bytes + 7) / 8 * 8;
  return groups * blocks.bytes <= Config::get().llMaxBytes && groups * packetBytes <= llPayloadCapacity(comm.layout);
}

bool oneshotFits(size_t bytes, const DeviceComm& comm) { return bytes <= llPayloadCapacity(comm.layout); }

int directKernelLanes(const DeviceComm& comm) { return chunkedBlockBudget(comm) / 2; }

}  // namespace flashccl
