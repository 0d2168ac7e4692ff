// libibverbs, loaded at run time (docs/design.md, "Few dependencies"): does the userspace RDMA stack see and open the
// devices the kernel shows in sysfs? A container without the provider library (rdma-core) or
// without /dev/infiniband lists no device or cannot open one, and NCCL then falls back to TCP
// sockets without an error.
#pragma once

#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

struct VerbsProbe {
  bool loaded = false;
  std::string why;  // when !loaded: the dlopen error
  std::vector<std::string> devices;       // names ibv_get_device_list returned
  std::vector<std::string> openFailures;  // "mlx5_1: Permission denied"
};

VerbsProbe probeVerbs(const std::string& library);

}  // namespace doctor
}  // namespace flashccl
