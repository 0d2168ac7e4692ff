#include "cluster_launch.h"

#include <cstdlib>

#include "launched_rank.h"

namespace flashccl {
namespace doctor {

namespace {

bool parsePort(const std::string& text, int* port) {
  char* end = nullptr;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || parsed <= 0 || parsed > 65535) return false;
  *port = int(parsed);
  return true;
}

}  // namespace

ClusterRole detectClusterRole(const std::map<std::string, std::string>& env,
                              const std::string& rendezvous) {
  ClusterRole role;
  // The launcher's variables (tools/common/launched_rank.h); none set: a single node.
  LaunchedRank launched;
  std::string problem;
  if (detectLaunchedRank(env, &launched, &problem)) {
    role.launcher = launched.launcher;
    role.rank = launched.rank;
    role.worldSize = launched.worldSize;
    role.localRank = launched.localRank;
  } else if (!problem.empty()) {
    role.active = true;
    role.problem = problem;
    return role;
  }
  role.active = role.worldSize > 1;
  if (!role.active) return role;
  if (!rendezvous.empty()) {
    const size_t colon = rendezvous.rfind(':');
    if (colon == std::string::npos || colon == 0 || !parsePort(rendezvous.substr(colon + 1), &role.port)) {
      role.problem = "--rendezvous " + rendezvous + ": expected HOST:PORT";
      return role;
    }
    role.address = rendezvous.substr(0, colon);
    return role;
  }
  auto addr = env.find("MASTER_ADDR");
  auto port = env.find("MASTER_PORT");
  if (addr == env.end() || addr->second.empty() || port == env.end() || !parsePort(port->second, &role.port)) {
    role.problem = "a " + role.launcher + " job of " + std::to_string(role.worldSize) +
                   " ranks, but no rendezvous: set MASTER_ADDR and MASTER_PORT (rank 0's host "
                   "and a free port) or pass --rendezvous HOST:PORT";
    return role;
  }
  role.address = addr->second;
  auto agentStore = env.find("TORCHELASTIC_USE_AGENT_STORE");
  if (agentStore != env.end() && agentStore->second == "True") {
    // torchrun's agent serves its TCPStore on MASTER_PORT; the next port is ours.
    if (role.port == 65535) {
      role.problem = "MASTER_PORT=65535 is torchrun's; pass --rendezvous HOST:PORT";
      return role;
    }
    role.port += 1;
  }
  return role;
}

}  // namespace doctor
}  // namespace flashccl
