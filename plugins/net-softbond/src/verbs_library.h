// libibverbs, loaded at run time. The plugin never links it (a machine without RDMA must still
// load the plugin), so every exported verbs function is resolved with dlsym here. The data-path
// calls (ibv_post_send, ibv_post_recv, ibv_poll_cq, ibv_req_notify_cq) are static inline in
// <infiniband/verbs.h>: they jump through the provider's ops table in the context and need no
// symbol. ibv_query_port and ibv_reg_mr are macros around inline wrappers in current headers, so
// the exported functions are taken by name instead.
#pragma once

#include <infiniband/verbs.h>

#include <string>

namespace flashccl::softbond {

struct VerbsLibrary {
  ibv_device** (*getDeviceList)(int*) = nullptr;
  void (*freeDeviceList)(ibv_device**) = nullptr;
  const char* (*getDeviceName)(ibv_device*) = nullptr;
  ibv_context* (*openDevice)(ibv_device*) = nullptr;
  int (*queryPort)(ibv_context*, uint8_t, ibv_port_attr*) = nullptr;
  int (*queryGid)(ibv_context*, uint8_t, int, ibv_gid*) = nullptr;
  ibv_pd* (*allocPd)(ibv_context*) = nullptr;
  ibv_mr* (*regMr)(ibv_pd*, void*, size_t, int) = nullptr;
  ibv_mr* (*regDmabufMr)(ibv_pd*, uint64_t, size_t, uint64_t, int, int) = nullptr;  // libibverbs >= 1.12
  int (*deregMr)(ibv_mr*) = nullptr;
  ibv_comp_channel* (*createCompChannel)(ibv_context*) = nullptr;
  int (*destroyCompChannel)(ibv_comp_channel*) = nullptr;
  ibv_cq* (*createCq)(ibv_context*, int, void*, ibv_comp_channel*, int) = nullptr;
  int (*destroyCq)(ibv_cq*) = nullptr;
  int (*getCqEvent)(ibv_comp_channel*, ibv_cq**, void**) = nullptr;
  void (*ackCqEvents)(ibv_cq*, unsigned int) = nullptr;
  ibv_qp* (*createQp)(ibv_pd*, ibv_qp_init_attr*) = nullptr;
  int (*modifyQp)(ibv_qp*, ibv_qp_attr*, int) = nullptr;
  int (*destroyQp)(ibv_qp*) = nullptr;
  int (*getAsyncEvent)(ibv_context*, ibv_async_event*) = nullptr;
  void (*ackAsyncEvent)(ibv_async_event*) = nullptr;
};

// Loads libibverbs.so.1 once per process. NULL with *why when it is absent or incomplete.
const VerbsLibrary* verbsLibrary(std::string* why);

}  // namespace flashccl::softbond
