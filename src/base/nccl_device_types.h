// The few device-API types (nccl_device/core.h) that the host-side exports pass around.
//
// nccl_device.h needs a CUDA compiler, and the shim is plain C++; these declarations are
// layout-identical to NCCL 2.28's (ncclTeam is passed by value, the rest by pointer only).
#pragma once

#include <stdint.h>

#ifndef _NCCL_DEVICE_CORE_H_
extern "C" {
struct ncclTeam {
  int nRanks, rank, stride;
};
typedef struct ncclTeam ncclTeam_t;
struct ncclDevComm;
typedef struct ncclDevComm ncclDevComm_t;
struct ncclDevCommRequirements;
typedef struct ncclDevCommRequirements ncclDevCommRequirements_t;
struct ncclDevResourceRequirements;
typedef struct ncclDevResourceRequirements ncclDevResourceRequirements_t;
struct ncclLsaBarrierHandle;
typedef struct ncclLsaBarrierHandle ncclLsaBarrierHandle_t;
struct ncclGinBarrierHandle;
typedef struct ncclGinBarrierHandle ncclGinBarrierHandle_t;
struct ncclLLA2AHandle;
typedef struct ncclLLA2AHandle ncclLLA2AHandle_t;
}
#endif

// NCCL 2.32's additions to the device API's host side (nccl_device/core.h, host.h,
// gin_win_stub.h), under names of our own so they never clash with NCCL's when both are seen:
// the multimem handle is passed by value and has NCCL's layout (one pointer); a CFT element id is
// NCCL's uint32_t, a CFT team mode NCCL's int-sized enum; the rest are passed by pointer.
struct FlashcclMultimemHandle {
  void* mcBasePtr;
};
typedef uint32_t FlashcclCftLeId;
typedef int FlashcclCftTeamMode;
struct ncclCommProperties;
struct ncclGinOutboxHandle;
struct ncclGinInboxA2AHandle;
