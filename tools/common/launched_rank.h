// Which rank this process is when a launcher started one process per GPU (mpirun, torchrun, srun),
// read from the launcher's own environment variables so that the tools link no MPI; and where the
// ranks meet. Used by `flashccl perf --launched`, `flashccl tune --launched` and `flashccl doctor`'s
// cluster runs.
#pragma once

#include <map>
#include <string>

namespace flashccl {

struct LaunchedRank {
  std::string launcher;  // "torchrun", "Open MPI", "MPICH/Hydra", "Slurm"
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;  // 0 when the launcher does not say
};

// The first launcher whose rank and size variables are both set (torchrun's first: under
// `mpirun torchrun ...` its variables describe the process). False when none is; *problem is then
// empty, or says why the variables that are set cannot be right (a rank not below the size).
bool detectLaunchedRank(const std::map<std::string, std::string>& environment, LaunchedRank* rank,
                        std::string* problem);

// Where NCCL's bootstrap root listens, as NCCL_COMM_ID takes it ("host:port"): every rank then
// derives the same ncclUniqueId from the address, and rank 0's ncclCommInitRank starts the root
// there, so no rank has to send the id to the others. NCCL_COMM_ID itself when set, else
// MASTER_ADDR:MASTER_PORT, or MASTER_PORT + 1 under torchrun when its agent serves its own store on
// MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True). False with *problem when neither is usable.
bool rendezvousAddress(const std::map<std::string, std::string>& environment, std::string* address,
                       std::string* problem);

// This process's environment as a map.
std::map<std::string, std::string> processEnvironment();

}  // namespace flashccl
