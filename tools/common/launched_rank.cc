#include "launched_rank.h"

#include <cstdlib>

extern char** environ;

namespace flashccl {

namespace {

struct LauncherVariables {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* localRank;
};

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

std::string value(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

}  // namespace

bool detectLaunchedRank(const std::map<std::string, std::string>& env, LaunchedRank* out,
                        std::string* problem) {
  problem->clear();
  for (const LauncherVariables& vars : kLaunchers) {
    LaunchedRank found;
    if (!readInt(env, vars.rank, &found.rank) || !readInt(env, vars.size, &found.worldSize)) continue;
    found.launcher = vars.launcher;
    if (!readInt(env, vars.localRank, &found.localRank)) found.localRank = 0;
    if (found.worldSize < 1 || found.rank >= found.worldSize) {
      *problem = found.launcher + " says rank " + std::to_string(found.rank) + " of " +
                 std::to_string(found.worldSize) + " (" + vars.rank + ", " + vars.size + ")";
      return false;
    }
    *out = found;
    return true;
  }
  return false;
}

bool rendezvousAddress(const std::map<std::string, std::string>& env, std::string* address,
                       std::string* problem) {
  const std::string commId = value(env, "NCCL_COMM_ID");
  if (!commId.empty()) {
    *address = commId;
    return true;
  }
  const std::string host = value(env, "MASTER_ADDR");
  int port = 0;
  if (host.empty() || !parsePort(value(env, "MASTER_PORT"), &port)) {
    *problem = "no rendezvous for the ranks: set NCCL_COMM_ID=HOST:PORT (rank 0's host and a free port), "
               "or MASTER_ADDR and MASTER_PORT";
    return false;
  }
  if (value(env, "TORCHELASTIC_USE_AGENT_STORE") == "True") {
    // torchrun's agent serves its TCPStore on MASTER_PORT; the next port is NCCL's root.
    if (port == 65535) {
      *problem = "MASTER_PORT=65535 is torchrun's store and there is no next port: set NCCL_COMM_ID=HOST:PORT";
      return false;
    }
    ++port;
  }
  // NCCL_COMM_ID takes "<ipv4>:<port>", "[<ipv6>]:<port>" or "<hostname>:<port>".
  const bool bareIpv6 = host.find(':') != std::string::npos && host.front() != '[';
  *address = (bareIpv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  return true;
}

std::map<std::string, std::string> processEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const size_t equals = entry.find('=');
    if (equals != std::string::npos) env[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return env;
}

}  // namespace flashccl
