#include "topo/nvml_loader.h"

#include <dlfcn.h>

namespace flashccl {

namespace {

// dlsym into a typed function pointer. Returns false when the symbol is missing.
template <typename Fn>
bool bind(void* handle, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return *fn != nullptr;
}

}  // namespace

std::unique_ptr<NvmlSession> NvmlSession::open(const std::string& library, std::string* error) {
  // RTLD_NOW: a half-resolvable NVML should fail here, not later in the middle of detection.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    if (error) *error = std::string("cannot load ") + library + ": " + (why ? why : "unknown error");
    return nullptr;
  }
  std::unique_ptr<NvmlSession> session(new NvmlSession());
  NvmlFunctions& fn = session->fn_;
  const char* missing = nullptr;
  if (!bind(handle, "nvmlInit_v2", &fn.init)) missing = "nvmlInit_v2";
  else if (!bind(handle, "nvmlShutdown", &fn.shutdown)) missing = "nvmlShutdown";
  else if (!bind(handle, "nvmlErrorString", &fn.errorString)) missing = "nvmlErrorString";
  else if (!bind(handle, "nvmlDeviceGetCount_v2", &fn.deviceGetCount)) missing = "nvmlDeviceGetCount_v2";
  else if (!bind(handle, "nvmlDeviceGetHandleByIndex_v2", &fn.deviceGetHandleByIndex))
    missing = "nvmlDeviceGetHandleByIndex_v2";
  else if (!bind(handle, "nvmlDeviceGetName", &fn.deviceGetName)) missing = "nvmlDeviceGetName";
  else if (!bind(handle, "nvmlDeviceGetPciInfo_v3", &fn.deviceGetPciInfo) &&
           !bind(handle, "nvmlDeviceGetPciInfo_v2", &fn.deviceGetPciInfo))
    missing = "nvmlDeviceGetPciInfo_v3";
  else if (!bind(handle, "nvmlDeviceGetNvLinkState", &fn.deviceGetNvLinkState))
    missing = "nvmlDeviceGetNvLinkState";
  else if (!bind(handle, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &fn.deviceGetNvLinkRemotePciInfo))
    missing = "nvmlDeviceGetNvLinkRemotePciInfo_v2";
  else if (!bind(handle, "nvmlDeviceGetP2PStatus", &fn.deviceGetP2PStatus))
    missing = "nvmlDeviceGetP2PStatus";
  else if (!bind(handle, "nvmlDeviceGetTopologyCommonAncestor", &fn.deviceGetTopologyCommonAncestor))
    missing = "nvmlDeviceGetTopologyCommonAncestor";
  if (missing != nullptr) {
    if (error) *error = library + " has no " + missing + " (NVML too old)";
    return nullptr;  // the handle stays open: see the class comment
  }
  bind(handle, "nvmlDeviceGetNvLinkRemoteDeviceType", &fn.deviceGetNvLinkRemoteDeviceType);
  bind(handle, "nvmlDeviceGetCudaComputeCapability", &fn.deviceGetCudaComputeCapability);

  const nvmlReturn_t rc = fn.init();
  if (rc != NVML_SUCCESS) {
    if (error) *error = "nvmlInit_v2 failed: " + session->errorText(rc);
    fn.shutdown = nullptr;  // nothing to shut down
    return nullptr;
  }
  return session;
}

NvmlSession::~NvmlSession() {
  if (fn_.shutdown) fn_.shutdown();
}

std::string NvmlSession::errorText(nvmlReturn_t rc) const {
  const char* text = fn_.errorString ? fn_.errorString(rc) : nullptr;
  return (text ? std::string(text) : std::string("NVML error")) + " (" + std::to_string(static_cast<int>(rc)) + ")";
}

}  // namespace flashccl
