// The part of NCCL's tuner plugin ABI this plugin implements: the ncclTunerPlugin_v2..v5 structs
// NCCL looks up with dlsym (newest first), and the types they pass.
//
// Why our own declarations: NCCL installs nccl.h but not its plugin headers. Every value and field
// order here is NCCL's (tuner ABI v2-v5, NCCL 2.28.9), and must stay so: NCCL reads these structs
// by layout. Names are ours, in our namespace, so they can never clash with a future nccl.h.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <cstdint>

namespace flashccl {
namespace nccl_abi {

// ncclDebugLogLevel.
enum LogLevel : int {
  kLogNone = 0,
  kLogVersion = 1,
  kLogWarn = 2,
  kLogInfo = 3,
  kLogAbort = 4,
  kLogTrace = 5,
};

// ncclDebugLogSubSys bits: the NCCL_DEBUG_SUBSYS filter applies to INFO lines.
constexpr unsigned long kSubsysInit = 0x1;
constexpr unsigned long kSubsysTuning = 0x40;

// ncclDebugLogger_t: NCCL's own logger, handed to init. printf-style.
using Logger = void (*)(LogLevel level, unsigned long flags, const char* file, int line,
                        const char* fmt, ...);

// ncclFunc_t. NCCL asks the tuner about the first five only (send/recv, all-to-all, gather and
// scatter are point-to-point work and never reach it).
enum Func : int {
  kFuncBroadcast = 0,
  kFuncReduce = 1,
  kFuncAllGather = 2,
  kFuncReduceScatter = 3,
  kFuncAllReduce = 4,
};
constexpr int kNumTunedFuncs = 5;

// NCCL_ALGO_* and NCCL_PROTO_*: the row and column of a cost-table cell.
enum Algorithm : int {
  kAlgoTree = 0,
  kAlgoRing = 1,
  kAlgoCollNetDirect = 2,
  kAlgoCollNetChain = 3,
  kAlgoNvls = 4,
  kAlgoNvlsTree = 5,
  kAlgoPat = 6,
};
constexpr int kNumAlgorithms = 7;
enum Protocol : int { kProtoLL = 0, kProtoLL128 = 1, kProtoSimple = 2 };
constexpr int kNumProtocols = 3;
constexpr int kUndefined = -1;  // NCCL_ALGO_UNDEF, NCCL_PROTO_UNDEF

// NCCL_ALGO_PROTO_IGNORE: a cost-table cell NCCL will not use (no hardware support, not valid
// for this collective, or excluded by NCCL_ALGO / NCCL_PROTO). Never to be overwritten.
constexpr float kCostIgnore = -1.0f;

// ncclNvlDomainInfo_v5_t.
struct NvlDomainInfoV5 {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
};

// ncclTunerConstants_v5_t: NCCL's cost-model constants, which a v5 init may edit. This plugin
// leaves them alone, so the struct stays opaque here.
struct TunerConstantsV5;

// ncclTuner_v5_t, the newest in NCCL 2.28 (2.30 still loads it after looking for v6).
// collCostTable is a contiguous float[numAlgo][numProto] passed as float**.
struct TunerV5 {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, size_t nRanks, size_t nNodes,
                       Logger logFunction, NvlDomainInfoV5* nvlDomainInfo,
                       TunerConstantsV5* constants);
  ncclResult_t (*getCollInfo)(void* context, Func collType, size_t nBytes, int numPipeOps,
                              float** collCostTable, int numAlgo, int numProto, int regBuff,
                              int* nChannels);
  ncclResult_t (*finalize)(void* context);
};

// ncclTuner_v4_t, the newest before 2.28: v5's getCollInfo, the older init, destroy for finalize.
struct TunerV4 {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, Logger logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, Func collType, size_t nBytes, int numPipeOps,
                              float** collCostTable, int numAlgo, int numProto, int regBuff,
                              int* nChannels);
  ncclResult_t (*destroy)(void* context);
};

// ncclTuner_v3_t: v4 without regBuff.
struct TunerV3 {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, Logger logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, Func collType, size_t nBytes, int numPipeOps,
                              float** collCostTable, int numAlgo, int numProto, int* nChannels);
  ncclResult_t (*destroy)(void* context);
};

// ncclTuner_v2_t, the oldest NCCL still loads: no cost table; the plugin names the algorithm and
// protocol.
struct TunerV2 {
  const char* name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, Logger logFunction, void** context);
  ncclResult_t (*getCollInfo)(void* context, Func collType, size_t nBytes, int collNetSupport,
                              int nvlsSupport, int numPipeOps, int* algorithm, int* protocol,
                              int* nChannels);
  ncclResult_t (*destroy)(void* context);
};

}  // namespace nccl_abi
}  // namespace flashccl
