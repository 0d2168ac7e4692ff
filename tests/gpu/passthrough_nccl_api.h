// The two ways into NCCL that the pass-through check compares, as tables with nccl.h's own
// signatures: the nccl* functions libflashccl.so exports (what an application calls) and the real
// NCCL's entry points from flashcclRealFunction (the same call, bypassing flashccl).
#pragma once

#include <string>

#include <nccl.h>

namespace flashccl_gpu_test::passthrough {

struct NcclApi {
  const char* label = "";  // "flashccl" or "NCCL", for messages
  decltype(&ncclAllReduce) allReduce = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclReduce) reduce = nullptr;
  decltype(&ncclAllGather) allGather = nullptr;
  decltype(&ncclReduceScatter) reduceScatter = nullptr;
  decltype(&ncclAlltoAll) alltoAll = nullptr;
  decltype(&ncclGather) gather = nullptr;
  decltype(&ncclScatter) scatter = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGroupStart) groupStart = nullptr;
  decltype(&ncclGroupEnd) groupEnd = nullptr;
};

NcclApi flashcclApi();

// The real NCCL's table in *api. Returns "" or why it is unusable: flashccl found no real NCCL,
// lacks one of the functions, or hands out its own export (the check would compare it with
// itself).
std::string realNcclApi(NcclApi* api);

// The real NCCL's version code (e.g. 22809), 0 when unknown.
int realNcclVersion();

}  // namespace flashccl_gpu_test::passthrough
