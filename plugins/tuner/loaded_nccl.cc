#include "loaded_nccl.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>

namespace flashccl {

namespace {

using GetVersion = int (*)(int*);

// The first loaded object whose file name starts "libnccl.so" (libnccl.so.2, libnccl.so.2.28.9).
int findNccl(struct dl_phdr_info* info, size_t, void* found) {
  const char* name = info->dlpi_name;
  if (name == nullptr || *name == '\0') return 0;
  const char* slash = std::strrchr(name, '/');
  const char* base = slash ? slash + 1 : name;
  if (std::strncmp(base, "libnccl.so", 10) != 0) return 0;
  *static_cast<std::string*>(found) = name;
  return 1;
}

GetVersion lookUpGetVersion() {
  if (void* symbol = dlsym(RTLD_DEFAULT, "ncclGetVersion")) return reinterpret_cast<GetVersion>(symbol);
  std::string path;
  dl_iterate_phdr(findNccl, &path);
  if (path.empty()) return nullptr;
  // RTLD_NOLOAD: only a handle on what is already there; the reference it takes is never
  // dropped, as NCCL keeps the library loaded for the process anyway.
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  return handle ? reinterpret_cast<GetVersion>(dlsym(handle, "ncclGetVersion")) : nullptr;
}

}  // namespace

std::string loadedNcclVersion(std::string* why) {
  const GetVersion getVersion = lookUpGetVersion();
  if (getVersion == nullptr) {
    *why = "no ncclGetVersion in this process";
    return "";
  }
  int code = 0;
  if (getVersion(&code) != 0 || code <= 0) {
    *why = "ncclGetVersion failed";
    return "";
  }
  return ncclVersionText(code);
}

}  // namespace flashccl
