// NVML, loaded at run time with dlopen (docs/design.md, "Few dependencies"): absent library = NVLink details off.
#pragma once

#include <memory>
#include <string>

// nvml.h gives the types and signatures only; every function is reached through dlsym, never
// linked. We name the versioned symbols we bind ourselves, so nvml.h's "unversioned name means the
// newest version" macros stay off.
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <nvml.h>

namespace flashccl {

// The NVML entry points topology detection calls. Required ones are non-null once open()
// succeeded; optional ones (newer NVML) may be null and callers must check.
struct NvmlFunctions {
  decltype(&nvmlInit_v2) init;
  decltype(&nvmlShutdown) shutdown;
  decltype(&nvmlErrorString) errorString;
  decltype(&nvmlDeviceGetCount_v2) deviceGetCount;
  decltype(&nvmlDeviceGetHandleByIndex_v2) deviceGetHandleByIndex;
  decltype(&nvmlDeviceGetName) deviceGetName;
  decltype(&nvmlDeviceGetPciInfo_v3) deviceGetPciInfo;  // _v3, else _v2 (same signature)
  decltype(&nvmlDeviceGetNvLinkState) deviceGetNvLinkState;
  decltype(&nvmlDeviceGetNvLinkRemotePciInfo_v2) deviceGetNvLinkRemotePciInfo;
  // Optional (NVML >= 460 drivers): tells a GPU peer from an NVSwitch port.
  decltype(&nvmlDeviceGetNvLinkRemoteDeviceType) deviceGetNvLinkRemoteDeviceType;
  decltype(&nvmlDeviceGetP2PStatus) deviceGetP2PStatus;
  decltype(&nvmlDeviceGetTopologyCommonAncestor) deviceGetTopologyCommonAncestor;
  // Optional.
  decltype(&nvmlDeviceGetCudaComputeCapability) deviceGetCudaComputeCapability;
};

// One initialised NVML session. The library handle stays open for the life of the process
// (unloading NVML while the app or NCCL also uses it is not worth the risk); nvmlShutdown runs
// in the destructor, which only drops NVML's reference count.
class NvmlSession {
 public:
  // dlopen(`library`) and nvmlInit_v2. nullptr with *error set when either fails.
  static std::unique_ptr<NvmlSession> open(const std::string& library, std::string* error);
  ~NvmlSession();
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;

  const NvmlFunctions& fn() const { return fn_; }
  // "NVML_ERROR_..." text for a return code (NVML's own words when it has them).
  std::string errorText(nvmlReturn_t rc) const;

 private:
  NvmlSession() = default;
  NvmlFunctions fn_{};
};

}  // namespace flashccl
