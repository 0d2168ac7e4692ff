// The NCCL C ABI of the vendored header (NCCL 2.32.3, third_party/nccl) as one list, so the
// real-library table, the exported shim and the symbol parity test are all generated from the
// same rows and cannot drift apart. Rows newer than the loaded NCCL resolve to nullptr and
// answer ncclInvalidUsage with a WARN (real_nccl.h, missingRealFunction).
//
// NCCL_RESULT_FUNCTIONS(X): X(name, (params), (args)) for every export returning ncclResult_t.
// NCCL_OTHER_FUNCTIONS(X):  X(ret, name, (params), (args)) for the few that return something else.
#pragma once

#include <nccl.h>

#include "base/nccl_device_types.h"
#include "base/nccl_newer_api.h"

#define NCCL_RESULT_FUNCTIONS(X)                                                                    \
  X(ncclMemAlloc, (void** ptr, size_t size), (ptr, size))                                           \
  X(ncclMemFree, (void* ptr), (ptr))                                                                \
  X(ncclGetVersion, (int* version), (version))                                                      \
  X(ncclGetUniqueId, (ncclUniqueId * uniqueId), (uniqueId))                                         \
  X(ncclCommInitRankConfig,                                                                         \
    (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config),           \
    (comm, nranks, commId, rank, config))                                                           \
  X(ncclCommInitRank, (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank),               \
    (comm, nranks, commId, rank))                                                                   \
  X(ncclCommInitAll, (ncclComm_t * comm, int ndev, const int* devlist), (comm, ndev, devlist))     \
  X(ncclCommInitRankScalable,                                                                       \
    (ncclComm_t * newcomm, int nranks, int myrank, int nId, ncclUniqueId* commIds,                  \
     ncclConfig_t* config),                                                                         \
    (newcomm, nranks, myrank, nId, commIds, config))                                                \
  X(ncclCommFinalize, (ncclComm_t comm), (comm))                                                    \
  X(ncclCommDestroy, (ncclComm_t comm), (comm))                                                     \
  X(ncclCommAbort, (ncclComm_t comm), (comm))                                                       \
  X(ncclCommRevoke, (ncclComm_t comm, int revokeFlags), (comm, revokeFlags))                        \
  X(ncclCommSplit, (ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config), \
    (comm, color, key, newcomm, config))                                                            \
  X(ncclCommShrink,                                                                                 \
    (ncclComm_t comm, int* excludeRanksList, int excludeRanksCount, ncclComm_t* newcomm,            \
     ncclConfig_t* config, int shrinkFlags),                                                        \
    (comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags))                      \
  X(ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t * asyncError), (comm, asyncError))       \
  X(ncclCommCount, (const ncclComm_t comm, int* count), (comm, count))                              \
  X(ncclCommCuDevice, (const ncclComm_t comm, int* device), (comm, device))                         \
  X(ncclCommUserRank, (const ncclComm_t comm, int* rank), (comm, rank))                             \
  X(ncclCommRegister, (const ncclComm_t comm, void* buff, size_t size, void** handle),              \
    (comm, buff, size, handle))                                                                     \
  X(ncclCommDeregister, (const ncclComm_t comm, void* handle), (comm, handle))                      \
  X(ncclCommWindowRegister,                                                                         \
    (ncclComm_t comm, void* buff, size_t size, ncclWindow_t* win, int winFlags),                    \
    (comm, buff, size, win, winFlags))                                                              \
  X(ncclCommWindowDeregister, (ncclComm_t comm, ncclWindow_t win), (comm, win))                     \
  X(ncclRedOpCreatePreMulSum,                                                                       \
    (ncclRedOp_t * op, void* scalar, ncclDataType_t datatype, ncclScalarResidence_t residence,      \
     ncclComm_t comm),                                                                              \
    (op, scalar, datatype, residence, comm))                                                        \
  X(ncclRedOpDestroy, (ncclRedOp_t op, ncclComm_t comm), (op, comm))                                \
  X(ncclReduce,                                                                                     \
    (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,   \
     int root, ncclComm_t comm, cudaStream_t stream),                                               \
    (sendbuff, recvbuff, count, datatype, op, root, comm, stream))                                  \
  X(ncclBcast,                                                                                      \
    (void* buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,                  \
     cudaStream_t stream),                                                                          \
    (buff, count, datatype, root, comm, stream))                                                    \
  X(ncclBroadcast,                                                                                  \
    (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,         \
     ncclComm_t comm, cudaStream_t stream),                                                         \
    (sendbuff, recvbuff, count, datatype, root, comm, stream))                                      \
  X(ncclAllReduce,                                                                                  \
    (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,   \
     ncclComm_t comm, cudaStream_t stream),                                                         \
    (sendbuff, recvbuff, count, datatype, op, comm, stream))                                        \
  X(ncclReduceScatter,                                                                              \
    (const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,               \
     ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream),                                         \
    (sendbuff, recvbuff, recvcount, datatype, op, comm, stream))                                    \
  X(ncclAllGather,                                                                                  \
    (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,               \
     ncclComm_t comm, cudaStream_t stream),                                                         \
    (sendbuff, recvbuff, sendcount, datatype, comm, stream))                                        \
  X(ncclAlltoAll,                                                                                   \
    (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,  \
     cudaStream_t stream),                                                                          \
    (sendbuff, recvbuff, count, datatype, comm, stream))                                            \
  X(ncclGather,                                                                                     \
    (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,         \
     ncclComm_t comm, cudaStream_t stream),                                                         \
    (sendbuff, recvbuff, count, datatype, root, comm, stream))                                      \
  X(ncclScatter,                                                                                    \
    (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,         \
     ncclComm_t comm, cudaStream_t stream),                                                         \
    (sendbuff, recvbuff, count, datatype, root, comm, stream))                                      \
  X(ncclSend,                                                                                       \
    (const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,        \
     cudaStream_t stream),                                                                          \
    (sendbuff, count, datatype, peer, comm, stream))                                                \
  X(ncclRecv,                                                                                       \
    (void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,              \
     cudaStream_t stream),                                                                          \
    (recvbuff, count, datatype, peer, comm, stream))                                                \
  X(ncclGroupStart, (), ())                                                                         \
  X(ncclGroupEnd, (), ())                                                                           \
  X(ncclGroupSimulateEnd, (ncclSimInfo_t * simInfo), (simInfo))                                     \
  X(ncclDevCommCreate,                                                                              \
    (ncclComm_t comm, const ncclDevCommRequirements_t* reqs, ncclDevComm_t* outDevComm),            \
    (comm, reqs, outDevComm))                                                                       \
  X(ncclDevCommDestroy, (ncclComm_t comm, const ncclDevComm_t* devComm), (comm, devComm))           \
  X(ncclLsaBarrierCreateRequirement,                                                                \
    (ncclTeam_t team, int nBarriers, ncclLsaBarrierHandle_t* outHandle,                             \
     ncclDevResourceRequirements_t* outReq),                                                        \
    (team, nBarriers, outHandle, outReq))                                                           \
  X(ncclGinBarrierCreateRequirement,                                                                \
    (ncclComm_t comm, ncclTeam_t team, int nBarriers, ncclGinBarrierHandle_t* outHandle,            \
     ncclDevResourceRequirements_t* outReq),                                                        \
    (comm, team, nBarriers, outHandle, outReq))                                                     \
  X(ncclLLA2ACreateRequirement,                                                                     \
    (int nBlocks, int nSlots, ncclLLA2AHandle_t* outHandle, ncclDevResourceRequirements_t* outReq), \
    (nBlocks, nSlots, outHandle, outReq)) \
  X(ncclCommGetUniqueId, (ncclComm_t comm, ncclUniqueId* uniqueId), (comm, uniqueId)) \
  X(ncclCommGrow, (ncclComm_t comm, int nRanks, const ncclUniqueId* uniqueId, int rank, ncclComm_t* newcomm, ncclConfig_t* config), (comm, nRanks, uniqueId, rank, newcomm, config)) \
  X(ncclCommSuspend, (ncclComm_t comm, int flags), (comm, flags)) \
  X(ncclCommResume, (ncclComm_t comm), (comm)) \
  X(ncclCommMemStats, (ncclComm_t comm, ncclCommMemStat_t stat, uint64_t* value), (comm, stat, value)) \
  X(ncclWinGetUserPtr, (ncclComm_t comm, ncclWindow_t win, void** outUserPtr), (comm, win, outUserPtr)) \
  X(ncclAllReduceConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config), (sendbuff, recvbuff, count, datatype, op, comm, stream, config)) \
  X(ncclBroadcastConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config), (sendbuff, recvbuff, count, datatype, root, comm, stream, config)) \
  X(ncclReduceConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config), (sendbuff, recvbuff, count, datatype, op, root, comm, stream, config)) \
  X(ncclAllGatherConfig, (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config), (sendbuff, recvbuff, sendcount, datatype, comm, stream, config)) \
  X(ncclReduceScatterConfig, (const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config), (sendbuff, recvbuff, recvcount, datatype, op, comm, stream, config)) \
  X(ncclAlltoAllConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config), (sendbuff, recvbuff, count, datatype, comm, stream, config)) \
  X(ncclGatherConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config), (sendbuff, recvbuff, count, datatype, root, comm, stream, config)) \
  X(ncclScatterConfig, (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t* config), (sendbuff, recvbuff, count, datatype, root, comm, stream, config)) \
  X(ncclPutSignal, (const void* localbuff, size_t count, ncclDataType_t datatype, int peer, ncclWindow_t peerWin, size_t peerWinOffset, int sigIdx, int ctx, unsigned int flags, ncclComm_t comm, cudaStream_t stream), (localbuff, count, datatype, peer, peerWin, peerWinOffset, sigIdx, ctx, flags, comm, stream)) \
  X(ncclSignal, (int peer, int sigIdx, int ctx, unsigned int flags, ncclComm_t comm, cudaStream_t stream), (peer, sigIdx, ctx, flags, comm, stream)) \
  X(ncclWaitSignal, (int nDesc, ncclWaitSignalDesc_t* signalDescs, ncclComm_t comm, cudaStream_t stream), (nDesc, signalDescs, comm, stream)) \
  X(ncclSetEncryption, (const ncclEncryptionConfig_t* config), (config)) \
  X(ncclParamBind, (ncclParamHandle_t* out, const char* key), (out, key)) \
  X(ncclParamGetI8, (ncclParamHandle_t h, int8_t* out), (h, out)) \
  X(ncclParamGetI16, (ncclParamHandle_t h, int16_t* out), (h, out)) \
  X(ncclParamGetI32, (ncclParamHandle_t h, int32_t* out), (h, out)) \
  X(ncclParamGetI64, (ncclParamHandle_t h, int64_t* out), (h, out)) \
  X(ncclParamGetU8, (ncclParamHandle_t h, uint8_t* out), (h, out)) \
  X(ncclParamGetU16, (ncclParamHandle_t h, uint16_t* out), (h, out)) \
  X(ncclParamGetU32, (ncclParamHandle_t h, uint32_t* out), (h, out)) \
  X(ncclParamGetU64, (ncclParamHandle_t h, uint64_t* out), (h, out)) \
  X(ncclParamGetStr, (ncclParamHandle_t h, const char** out), (h, out)) \
  X(ncclParamGet, (ncclParamHandle_t h, void* out, int maxLen, int* len), (h, out, maxLen, len)) \
  X(ncclParamGetParameter, (const char* key, const char** value, int* valueLen), (key, value, valueLen)) \
  X(ncclParamGetAllParameterKeys, (const char*** table, int* tableLen), (table, tableLen)) \
  X(ncclCommQueryProperties, (ncclComm_t comm, struct ncclCommProperties* props), (comm, props)) \
  X(ncclGetLsaMultimemDevicePointer, (ncclWindow_t window, size_t offset, void** outPtr), (window, offset, outPtr)) \
  X(ncclGetMultimemDevicePointer, (ncclWindow_t window, size_t offset, FlashcclMultimemHandle multimem, void** outPtr), (window, offset, multimem, outPtr)) \
  X(ncclGetLsaDevicePointer, (ncclWindow_t window, size_t offset, int lsaRank, void** outPtr), (window, offset, lsaRank, outPtr)) \
  X(ncclGetPeerDevicePointer, (ncclWindow_t window, size_t offset, int peer, void** outPtr), (window, offset, peer, outPtr)) \
  X(ncclGetMultimemDeviceLeInfo, (ncclWindow_t window, size_t offset, FlashcclCftLeId* leId, size_t* leOffset), (window, offset, leId, leOffset)) \
  X(ncclGetCftDeviceLeInfo, (ncclWindow_t window, size_t offset, int peerCft, ncclTeam_t cftTeam, FlashcclCftLeId* leId, size_t* leOffset), (window, offset, peerCft, cftTeam, leId, leOffset)) \
  X(ncclGetPeerDeviceLeInfo, (ncclWindow_t window, size_t offset, int peerWorld, FlashcclCftLeId* leId, size_t* leOffset), (window, offset, peerWorld, leId, leOffset)) \
  X(ncclGinOutboxCreateRequirement, (int nBlocks, int size_log2, struct ncclGinOutboxHandle* outHandle, ncclDevResourceRequirements_t* outReq), (nBlocks, size_log2, outHandle, outReq)) \
  X(ncclGinInboxA2ACreateRequirement, (ncclTeam_t peers, int nBlocks, int size_log2, struct ncclGinInboxA2AHandle* outHandle, ncclDevResourceRequirements_t* outReq), (peers, nBlocks, size_log2, outHandle, outReq))

// Exports that do not return ncclResult_t. The shim writes these by hand because "the real NCCL
// lacks it" needs a different answer for each return type.
#define NCCL_OTHER_FUNCTIONS(X)                                                          \
  X(const char*, ncclGetErrorString, (ncclResult_t result), (result))                    \
  X(const char*, ncclGetLastError, (ncclComm_t comm), (comm))                            \
  X(void, ncclResetDebugInit, (), ())                                                    \
  X(void, ncclResetDebugInitInternal, (), ())                                            \
  X(ncclTeam_t, ncclTeamWorld, (ncclComm_t comm), (comm))                                \
  X(ncclTeam_t, ncclTeamLsa, (ncclComm_t comm), (comm))                                  \
  X(ncclTeam_t, ncclTeamRail, (ncclComm_t comm), (comm))                                 \
  X(int, ncclTeamRankToWorld, (ncclComm_t comm, ncclTeam_t team, int rank), (comm, team, rank)) \
  X(int, ncclTeamRankToLsa, (ncclComm_t comm, ncclTeam_t team, int rank), (comm, team, rank))   \
  X(int, ncclLLA2ACalcSlots, (int maxElts, int maxEltSize), (maxElts, maxEltSize))        \
  X(void, ncclParamDumpAll, (), ())                                                      \
  X(ncclTeam_t, ncclTeamCft, (ncclComm_t comm, FlashcclCftTeamMode mode), (comm, mode))    \
  X(ncclTeam_t, ncclTeamCftMultimem, (ncclComm_t comm), (comm))
