// Calls that run several kernels of ours (the algorithms across nodes: node phases with NCCL's
// steps between nodes in between). The flight recorder learns that a call completed from the
// progress word its kernels stamp (device/launch_protocol.cuh, endLaunch); a call is complete
// only when its last kernel is, so every earlier one is launched with this copy of the
// communicator, which leaves that stamp out.
#pragma once

#include "transport/p2p/device_comm.h"

namespace flashccl {

inline DeviceComm notLastKernelOfCall(const DeviceComm& comm) {
  DeviceComm continuing = comm;
  continuing.callContinues = true;
  return continuing;
}

}  // namespace flashccl
