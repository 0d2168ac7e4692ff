#include "rdma_devices.h"

#include <dirent.h>
#include <dlfcn.h>

namespace softbond_test {

std::string rdmaRails() {
  DIR* dir = opendir("/sys/class/net");
  if (!dir) return "";
  std::string rails;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name[0] == '.') continue;
    DIR* ib = opendir(("/sys/class/net/" + name + "/device/infiniband").c_str());
    if (!ib) continue;
    closedir(ib);
    rails = name + "," + name;
    break;
  }
  closedir(dir);
  return rails;
}

std::string verbsUnavailableReason() {
  void* library = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) return "libibverbs.so.1 is not installed";
  using GetList = void** (*)(int*);
  using FreeList = void (*)(void**);
  auto getList = reinterpret_cast<GetList>(dlsym(library, "ibv_get_device_list"));
  auto freeList = reinterpret_cast<FreeList>(dlsym(library, "ibv_free_device_list"));
  int count = 0;
  void** list = getList ? getList(&count) : nullptr;
  if (list) freeList(list);
  if (count == 0) return "no RDMA device on this machine (ibv_devices lists none)";
  if (rdmaRails().empty()) return "no network interface has an RDMA device behind it";
  return "";
}

}  // namespace softbond_test
