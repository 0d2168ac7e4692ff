#include "verbs_library.h"

#include <dlfcn.h>


namespace flashccl::softbond {
namespace {

VerbsLibrary g_verbs;
std::string g_error;

// Versioned lookup where libibverbs carries two versions of a symbol (1.0 and 1.1): the 1.1 one
// is the ABI <infiniband/verbs.h> describes.
template <typename Function>
bool resolve(void* library, const char* name, Function* out, bool required = true) {
  void* symbol = dlvsym(library, name, "IBVERBS_1.1");
  if (!symbol) symbol = dlsym(library, name);
  *out = reinterpret_cast<Function>(symbol);
  if (!symbol && required) g_error = std::string("libibverbs has no ") + name;
  return symbol || !required;
}

void load() {
  void* library = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    g_error = std::string("libibverbs.so.1 not found: ") + dlerror();
    return;
  }
  VerbsLibrary v;
  bool ok = resolve(library, "ibv_get_device_list", &v.getDeviceList) &&
            resolve(library, "ibv_free_device_list", &v.freeDeviceList) &&
            resolve(library, "ibv_get_device_name", &v.getDeviceName) &&
            resolve(library, "ibv_open_device", &v.openDevice) &&
            resolve(library, "ibv_query_port", &v.queryPort) && resolve(library, "ibv_query_gid", &v.queryGid) &&
            resolve(library, "ibv_alloc_pd", &v.allocPd) && resolve(library, "ibv_reg_mr", &v.regMr) &&
            resolve(library, "ibv_reg_dmabuf_mr", &v.regDmabufMr, false) &&
            resolve(library, "ibv_dereg_mr", &v.deregMr) &&
            resolve(library, "ibv_create_comp_channel", &v.createCompChannel) &&
            resolve(library, "ibv_destroy_comp_channel", &v.destroyCompChannel) &&
            resolve(library, "ibv_create_cq", &v.createCq) && resolve(library, "ibv_destroy_cq", &v.destroyCq) &&
            resolve(library, "ibv_get_cq_event", &v.getCqEvent) &&
            resolve(library, "ibv_ack_cq_events", &v.ackCqEvents) &&
            resolve(library, "ibv_create_qp", &v.createQp) && resolve(library, "ibv_modify_qp", &v.modifyQp) &&
            resolve(library, "ibv_destroy_qp", &v.destroyQp) &&
            resolve(library, "ibv_get_async_event", &v.getAsyncEvent) &&
            resolve(library, "ibv_ack_async_event", &v.ackAsyncEvent);
  if (ok) g_verbs = v;
}

}  // namespace

const VerbsLibrary* verbsLibrary(std::string* why) {
  static const bool loaded = (load(), true);  // not std::call_once: see plugin_state.cc
  (void)loaded;
  if (!g_verbs.getDeviceList) {
    *why = g_error;
    return nullptr;
  }
  return &g_verbs;
}

}  // namespace flashccl::softbond
