#include "passthrough_nccl_api.h"

#include "flashccl/flashccl.h"

namespace flashccl_gpu_test::passthrough {
namespace {

// Looks `name` up in the real NCCL; false (with *missing naming it) when absent or when it is
// flashccl's own export of that name.
template <typename Fn>
bool lookUp(const char* name, Fn own, Fn* out, std::string* missing) {
  *out = reinterpret_cast<Fn>(flashcclRealFunction(name));
  if (*out != nullptr && *out != own) return true;
  if (missing->empty()) missing->assign(name);
  return false;
}

}  // namespace

NcclApi flashcclApi() {
  NcclApi api;
  api.label = "flashccl";
  api.allReduce = &ncclAllReduce;
  api.broadcast = &ncclBroadcast;
  api.reduce = &ncclReduce;
  api.allGather = &ncclAllGather;
  api.reduceScatter = &ncclReduceScatter;
  api.alltoAll = &ncclAlltoAll;
  api.gather = &ncclGather;
  api.scatter = &ncclScatter;
  api.send = &ncclSend;
  api.recv = &ncclRecv;
  api.groupStart = &ncclGroupStart;
  api.groupEnd = &ncclGroupEnd;
  return api;
}

std::string realNcclApi(NcclApi* api) {
  NcclApi real;
  real.label = "NCCL";
  std::string missing;
  lookUp("ncclAllReduce", &ncclAllReduce, &real.allReduce, &missing);
  lookUp("ncclBroadcast", &ncclBroadcast, &real.broadcast, &missing);
  lookUp("ncclReduce", &ncclReduce, &real.reduce, &missing);
  lookUp("ncclAllGather", &ncclAllGather, &real.allGather, &missing);
  lookUp("ncclReduceScatter", &ncclReduceScatter, &real.reduceScatter, &missing);
  lookUp("ncclAlltoAll", &ncclAlltoAll, &real.alltoAll, &missing);
  lookUp("ncclGather", &ncclGather, &real.gather, &missing);
  lookUp("ncclScatter", &ncclScatter, &real.scatter, &missing);
  lookUp("ncclSend", &ncclSend, &real.send, &missing);
  lookUp("ncclRecv", &ncclRecv, &real.recv, &missing);
  lookUp("ncclGroupStart", &ncclGroupStart, &real.groupStart, &missing);
  lookUp("ncclGroupEnd", &ncclGroupEnd, &real.groupEnd, &missing);
  if (!missing.empty()) {
    const char* path = flashcclRealLibraryPath();
    return "flashcclRealFunction(\"" + missing + "\") gave no usable real NCCL function (real NCCL: " +
           (path && *path ? path : "not found") + ")";
  }
  *api = real;
  return "";
}

int realNcclVersion() {
  auto getVersion = reinterpret_cast<decltype(&ncclGetVersion)>(flashcclRealFunction("ncclGetVersion"));
  int version = 0;
  if (getVersion == nullptr || getVersion(&version) != ncclSuccess) return 0;
  return version;
}

}  // namespace flashccl_gpu_test::passthrough
