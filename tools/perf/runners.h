// The three ways `flashccl perf` lays ranks out, each creating its communicators through flashccl's
// exported ncclCommInitRank / ncclCommInitAll (so flashccl sets them up as it would for any
// application) and handing them to RankDriver. Each returns rank 0's report; a CUDA or NCCL failure
// ends the process through exitWithFailure (the other ranks could not continue anyway).
#pragma once

#include <string>

#include "nccl_api.h"
#include "perf_options.h"
#include "run_report.h"

namespace flashccl {
namespace perf {

// -t T [-g G]: T threads in this process, each driving G GPUs (ranks t*G .. t*G+G-1 on the GPUs of
// the same index). With G > 1 each thread creates its communicators inside ncclGroupStart/End.
RunReport runThreads(const PerfOptions& options, const RankLayout& layout, const CollectiveApi& nccl,
                     const CollectiveApi& flashccl);

// --grouped: this thread drives every GPU; communicators from ncclCommInitAll.
RunReport runGrouped(const PerfOptions& options, const RankLayout& layout, const CollectiveApi& nccl,
                     const CollectiveApi& flashccl);

// --processes P, parent side: makes the unique id, starts P copies of this command (hidden --child-rank
// r --uid HEX --result-file FILE), stops them all if one fails, and reads rank 0's JSON record.
// Returns the exit status (0, or 1 for wrong results or a failed child; *error says which).
int runProcessesParent(const PerfOptions& options, const RankLayout& layout, RunReport* report,
                       std::string* error);

// --processes P, child side: one rank on GPU `--child-rank`. Returns 0, or 1 for wrong results.
int runProcessChild(const PerfOptions& options, const RankLayout& layout, const CollectiveApi& nccl,
                    const CollectiveApi& flashccl);

// --launched: this process is rank `options.launch.rank` of `layout.processes`, on GPU
// `options.launch.localRank`, started by mpirun, torchrun or srun. The ranks meet at NCCL_COMM_ID
// (set here from MASTER_ADDR/MASTER_PORT when the launcher did not set it: launched_rank.h), so
// every rank makes the same ncclUniqueId and none has to send it. Returns rank 0's report (the
// other ranks' reports lack the algorithm names); false with *error when there is no rendezvous.
bool runLaunchedRank(const PerfOptions& options, const RankLayout& layout, const CollectiveApi& nccl,
                     const CollectiveApi& flashccl, RunReport* report, std::string* error);

// Status a child exits with when it fails (distinct from 1, "ran to the end and found wrong
// results", so the parent knows to stop the others).
constexpr int kChildFailureStatus = 3;

}  // namespace perf
}  // namespace flashccl
