#include "cluster_launch.h"

#include <cstdlib>

namespace flashccl {
namespace doctor {

namespace {

struct LauncherVariables {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* localRank;
};

// torchrun first: under `mpirun torchrun ...` its variables describe the ranks doctor is.
const LauncherVariables kLaunchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"MPICH/Hydra", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

bool readInt(const std::map<std::string, std::string>& env, const char* name, int* value) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return false;
  char* end = nullptr;
  const long parsed = std::strtol(it->second.c_str(), &end, 10);
  if (*end != '\0' || parsed < 0 || parsed > 1000000) return false;
  *value = int(parsed);
  return true;
}

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
  for (const LauncherVariables& vars : kLaunchers) {
    int rank = 0, size = 0;
    if (!readInt(env, vars.rank, &rank) || !readInt(env, vars.size, &size)) continue;
    role.launcher = vars.launcher;
    role.rank = rank;
    role.worldSize = size;
    if (!readInt(env, vars.localRank, &role.localRank)) role.localRank = 0;
    break;
  }
  role.active = role.worldSize > 1;
  if (!role.active) return role;
  if (role.rank >= role.worldSize) {
    role.problem = role.launcher + " says rank " + std::to_string(role.rank) + " of " +
                   std::to_string(role.worldSize);
    return role;
  }
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
