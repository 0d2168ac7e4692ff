// Environment, part two: variables known to break or slow NCCL jobs, judged against what this
// machine has (its RDMA devices, network interfaces, GPUs).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "check_result.h"

namespace flashccl {
namespace doctor {

struct VariableContext {
  std::map<std::string, std::string> environment;  // the variables that are set
  std::vector<std::string> rdmaDevices;  // "mlx5_0", ... (sysfs class/infiniband)
  std::map<std::string, std::vector<int>> rdmaPorts;  // device -> port numbers
  std::vector<std::string> interfaces;   // every network interface (sysfs class/net)
  int nvmlGpuCount = -1;                 // -1 = unknown (no NVML)
  std::vector<std::string> gpuUuids;     // NVML's "GPU-..." in NVML order
  bool nvswitch = false;                 // the GPUs reach each other through NVSwitch
};

// A list in NCCL_IB_HCA / NCCL_SOCKET_IFNAME syntax: "^" excludes, "=" makes names exact
// (otherwise each is a prefix), "name[:port]" items separated by commas.
struct NameFilter {
  bool exclude = false;
  bool exact = false;
  struct Item {
    std::string name;
    int port = -1;  // -1 = any
  };
  std::vector<Item> items;
};
NameFilter parseNameFilter(const std::string& text);

// What CUDA makes of CUDA_VISIBLE_DEVICES: it enumerates entries in order and stops at the first
// one that names no GPU.
struct VisibleDevices {
  std::vector<std::string> visible;  // entries CUDA will show, in order
  std::string firstInvalid;          // "" when every entry is valid
  std::string invalidReason;
  std::vector<std::string> hiddenAfterInvalid;  // valid-looking entries after it
  std::vector<std::string> duplicates;
};
VisibleDevices parseVisibleDevices(const std::string& text, int gpuCount,
                                   const std::vector<std::string>& uuids);

// One check per variable: NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE, NCCL_IB_HCA,
// NCCL_SOCKET_IFNAME, NCCL_NVLS_ENABLE, CUDA_VISIBLE_DEVICES.
std::vector<CheckResult> judgeVariables(const VariableContext& context);

}  // namespace doctor
}  // namespace flashccl
