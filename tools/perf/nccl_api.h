// The two ways into the collectives that `flashccl perf` puts side by side, as tables of function
// pointers with one signature: the real NCCL (from flashcclRealFunction, bypassing flashccl) and
// flashccl (the nccl* functions libflashccl.so exports, the ones an application calls).
#pragma once

#include <nccl.h>

#include <string>

namespace flashccl {
namespace perf {

struct CollectiveApi {
  const char* label = "";  // "NCCL" or "flashccl", for messages
  ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*allGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*reduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,
                                ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*groupStart)() = nullptr;
  ncclResult_t (*groupEnd)() = nullptr;
};

CollectiveApi flashcclApi();

// False with *error when flashccl cannot hand out the real NCCL's functions (no real NCCL found), or
// hands out its own (then the comparison would measure flashccl against itself).
bool realNcclApi(CollectiveApi* api, std::string* error);

}  // namespace perf
}  // namespace flashccl
