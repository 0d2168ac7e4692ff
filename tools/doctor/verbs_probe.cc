#include "verbs_probe.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstring>

namespace flashccl {
namespace doctor {

VerbsProbe probeVerbs(const std::string& library) {
  VerbsProbe probe;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    probe.why = why ? why : ("cannot load " + library);
    return probe;
  }
  // The few verbs entry points needed, through opaque pointers: struct ibv_device and
  // struct ibv_context are never looked into.
  using GetDeviceList = void** (*)(int*);
  using FreeDeviceList = void (*)(void**);
  using GetDeviceName = const char* (*)(void*);
  using OpenDevice = void* (*)(void*);
  using CloseDevice = int (*)(void*);
  auto getList = reinterpret_cast<GetDeviceList>(dlsym(handle, "ibv_get_device_list"));
  auto freeList = reinterpret_cast<FreeDeviceList>(dlsym(handle, "ibv_free_device_list"));
  auto getName = reinterpret_cast<GetDeviceName>(dlsym(handle, "ibv_get_device_name"));
  auto open = reinterpret_cast<OpenDevice>(dlsym(handle, "ibv_open_device"));
  auto close = reinterpret_cast<CloseDevice>(dlsym(handle, "ibv_close_device"));
  if (!getList || !freeList || !getName || !open || !close) {
    probe.why = library + " lacks ibv_get_device_list/ibv_open_device (not libibverbs?)";
    return probe;
  }
  probe.loaded = true;
  int count = 0;
  void** list = getList(&count);
  if (list == nullptr) {
    probe.why = std::string("ibv_get_device_list: ") + std::strerror(errno);
    return probe;
  }
  for (int i = 0; i < count; ++i) {
    const char* name = getName(list[i]);
    const std::string device = name ? name : "?";
    probe.devices.push_back(device);
    errno = 0;
    void* context = open(list[i]);
    if (context == nullptr) {
      probe.openFailures.push_back(device + ": " + (errno ? std::strerror(errno) : "cannot open"));
    } else {
      close(context);
    }
  }
  freeList(list);
  return probe;
}

}  // namespace doctor
}  // namespace flashccl
