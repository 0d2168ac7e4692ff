/* flashccl: a drop-in, NCCL-compatible collective communication library.
 *
 * Applications use the NCCL API (nccl.h) unchanged; this header adds the few flashccl* functions
 * that tools need to look inside: which algorithm ran, and the real NCCL behind flashccl (for
 * side-by-side benchmarks in one process). */
#ifndef FLASHCCL_H_
#define FLASHCCL_H_

#include <stddef.h>
#include <nccl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Collectives flashccl can take over. */
typedef enum {
  flashcclAllReduce = 0,
  flashcclAllGather = 1,
  flashcclReduceScatter = 2
} flashcclColl_t;

/* flashccl's own version, e.g. "0.1.0". */
const char* flashcclVersion(void);

/* The real NCCL's entry point `name` (e.g. "ncclAllReduce"), the function flashccl forwards to.
 * Calling it bypasses flashccl entirely. NULL if the real NCCL cannot be found or lacks it. */
void* flashcclRealFunction(const char* name);

/* Path of the real libnccl flashccl forwards to; "" when none was found. */
const char* flashcclRealLibraryPath(void);

/* Name of the algorithm that ran the last AllReduce/AllGather/ReduceScatter on `comm`
 * ("NCCL" when it was forwarded). NULL when flashccl does not know `comm`. */
const char* flashcclLastAlgorithm(ncclComm_t comm);

/* What flashccl would run for this call, without running it: an algorithm name or "NCCL".
 * `count` is as in the NCCL call (AllGather sendcount, ReduceScatter recvcount). If `why` is not
 * NULL it receives the matched selection row or the reason for falling back. */
const char* flashcclPlan(ncclComm_t comm, flashcclColl_t coll, size_t count,
                         ncclDataType_t datatype, ncclRedOp_t op, int inPlace, const char** why);

/* 1 when flashccl's set-up for `comm` is done and its algorithms may run, 0 while pending,
 * -1 when disabled (then *reason says why), -2 when `comm` is unknown. */
int flashcclCommState(ncclComm_t comm, const char** reason);

#ifdef __cplusplus
}
#endif

#endif /* FLASHCCL_H_ */
