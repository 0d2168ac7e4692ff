#include "nccl_api.h"

#include <flashccl/flashccl.h>

namespace flashccl {
namespace perf {

CollectiveApi flashcclApi() {
  CollectiveApi api;
  api.label = "flashccl";
  api.allReduce = &::ncclAllReduce;
  api.allGather = &::ncclAllGather;
  api.reduceScatter = &::ncclReduceScatter;
  api.groupStart = &::ncclGroupStart;
  api.groupEnd = &::ncclGroupEnd;
  return api;
}

namespace {

template <typename Fn>
bool lookUp(const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(flashcclRealFunction(name));
  if (!*fn) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *fn != nullptr;
}

}  // namespace

bool realNcclApi(CollectiveApi* api, std::string* error) {
  CollectiveApi real;
  real.label = "NCCL";
  std::string missing;
  lookUp("ncclAllReduce", &real.allReduce, &missing);
  lookUp("ncclAllGather", &real.allGather, &missing);
  lookUp("ncclReduceScatter", &real.reduceScatter, &missing);
  lookUp("ncclGroupStart", &real.groupStart, &missing);
  lookUp("ncclGroupEnd", &real.groupEnd, &missing);
  if (!missing.empty()) {
    const char* path = flashcclRealLibraryPath();
    *error = "flashccl could not give the real NCCL's " + missing +
             (path && *path ? std::string(" (real library: ") + path + ")"
                            : std::string(" (no real libnccl.so.2 found)")) +
             "; point FLASHCCL_NCCL_LIBRARY at libnccl.so.2 (NCCL_DEBUG=INFO shows what flashccl "
             "tried)";
    return false;
  }
  if (real.allReduce == flashcclApi().allReduce) {
    *error = "flashcclRealFunction(\"ncclAllReduce\") returned flashccl's own ncclAllReduce: the "
             "comparison would measure flashccl against itself";
    return false;
  }
  *api = real;
  return true;
}

}  // namespace perf
}  // namespace flashccl
