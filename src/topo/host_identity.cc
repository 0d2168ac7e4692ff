#include "topo/host_identity.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "base/hash.h"

namespace flashccl {

uint64_t hostIdentity() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string id = host;
  // Containers may share a host name while running on different machines, and one machine
  // keeps its name across reboots: the boot id tells kernel instances apart.
  std::ifstream bootId("/proc/sys/kernel/random/boot_id");
  std::string boot;
  if (bootId >> boot) id += boot;
  return fnv1a(kFnvOffset, id.data(), id.size());
}

uint64_t nodeIdentity(const std::string& nodeIdOverride) {
  if (nodeIdOverride.empty()) return hostIdentity();
  // Prefixed, so no override value hashes like a real host's name and boot id.
  const std::string id = "FLASHCCL_NODE_ID=" + nodeIdOverride;
  return fnv1a(kFnvOffset, id.data(), id.size());
}

}  // namespace flashccl
