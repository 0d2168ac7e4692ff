// NVML, loaded at run time with dlopen (docs/design.md, "Few dependencies"): absent library = NVLink details off.
#pragma once

#include <memory>
#include <string>

#include "topo/nvml_api.h"

namespace flashccl {

// The NVML entry points topology detection calls. Required ones are non-null once open()
// succeeded; optional ones (newer NVML) may be null and callers must check.
struct NvmlFunctions {
  nvml::Return (*init)();                                             // nvmlInit_v2
  nvml::Return (*shutdown)();                                         // nvmlShutdown
  const char* (*errorString)(nvml::Return);                           // nvmlErrorString
  nvml::Return (*deviceGetCount)(unsigned int*);                      // nvmlDeviceGetCount_v2
  nvml::Return (*deviceGetHandleByIndex)(unsigned int, nvml::Device*);  // ..._v2
  nvml::Return (*deviceGetName)(nvml::Device, char*, unsigned int);
  nvml::Return (*deviceGetPciInfo)(nvml::Device, nvml::PciInfo*);     // _v3, else _v2
  nvml::Return (*deviceGetNvLinkState)(nvml::Device, unsigned int, nvml::EnableState*);
  nvml::Return (*deviceGetNvLinkRemotePciInfo)(nvml::Device, unsigned int, nvml::PciInfo*);
  // Optional (NVML >= 460 drivers): tells a GPU peer from an NVSwitch port.
  nvml::Return (*deviceGetNvLinkRemoteDeviceType)(nvml::Device, unsigned int,
                                                  nvml::NvLinkDeviceType*);
  nvml::Return (*deviceGetP2PStatus)(nvml::Device, nvml::Device, nvml::P2PCapsIndex,
                                     nvml::P2PStatus*);
  nvml::Return (*deviceGetTopologyCommonAncestor)(nvml::Device, nvml::Device,
                                                  nvml::TopologyLevel*);
  // Optional.
  nvml::Return (*deviceGetCudaComputeCapability)(nvml::Device, int*, int*);
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
  std::string errorText(nvml::Return rc) const;

 private:
  NvmlSession() = default;
  NvmlFunctions fn_{};
};

}  // namespace flashccl
