// Whether doctor runs as one rank of a job started by mpirun, torchrun or srun, and where rank 0
// collects the node reports. Only environment variables are read: doctor links no MPI.
#pragma once

#include <map>
#include <string>

namespace flashccl {
namespace doctor {

struct ClusterRole {
  bool active = false;  // WORLD_SIZE > 1
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
  std::string launcher;  // "torchrun", "Open MPI", "MPICH/Hydra", "Slurm"
  std::string address;   // rank 0's host
  int port = 0;          // where rank 0 listens
  std::string problem;   // set when the job is a cluster run but the rendezvous is unknown
};

// `rendezvous` is --rendezvous HOST:PORT ("" = from MASTER_ADDR / MASTER_PORT). Under torchrun
// whose agent already serves MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True), MASTER_PORT + 1.
ClusterRole detectClusterRole(const std::map<std::string, std::string>& environment,
                              const std::string& rendezvous);

}  // namespace doctor
}  // namespace flashccl
