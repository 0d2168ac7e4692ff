#include "algo/rail_agreement.h"

#include "algo/device/launch_protocol.cuh"
#include "algo/launch_common.h"

namespace flashccl {
namespace {

__global__ void __launch_bounds__(kKernelThreads) stampCallRecordKernel(CallRecord* record, CallRecord value) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *record = value;
}

__global__ void __launch_bounds__(kKernelThreads) railCheckpointKernel(DeviceComm comm) {
  const dev::Launch launch = dev::beginLaunch(comm);
  dev::peersAgree(comm, launch);  // a disagreement is recorded there; nothing follows either way
  dev::endLaunch(comm, launch);
}

}  // namespace

ncclResult_t stampCallRecord(const Hierarchy& h, const CallHeader& header) {
  CallRecord value{};
  value.header = header;
  value.worldRank = h.worldRank;
  return launchResult(launchKernel(stampCallRecordKernel, 1, h.railStream, h.records, value), "call record");
}

DeviceComm withRailRecords(const DeviceComm& comm, const Hierarchy& h) {
  DeviceComm checked = comm;
  checked.railRecords = h.records + 1;
  checked.railRanks = h.nnodes;
  return checked;
}

cudaError_t launchRailCheckpoint(const DeviceComm& comm, cudaStream_t stream) {
  return launchKernel(railCheckpointKernel, 1, stream, comm);
}

}  // namespace flashccl
