/* fake_nccl.c with what NCCL 2.28.9 adds for fault tolerance: ncclCommRevoke and ncclCommShrink
 * (shrink makes a child of the ranks left, numbered in order; it counts the NCCL_SHRINK_ABORT
 * calls apart). Used with FAKE_NCCL_VERSION=22809 by the shim's recovery tests. */
#include "fake_nccl.c"

static int revokeCalls = 0, shrinkCalls = 0, shrinkAbortCalls = 0;

__attribute__((visibility("default"))) int fakeNcclFaultCalls(const char* name) {
  if (!strcmp(name, "ncclCommRevoke")) return revokeCalls;
  if (!strcmp(name, "ncclCommShrink")) return shrinkCalls;
  if (!strcmp(name, "ncclCommShrinkAbort")) return shrinkAbortCalls;
  return -1;
}

FAKE_API(ncclResult_t, ncclCommRevoke, ncclComm_t comm, int revokeFlags);
ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags) {
  if (comm == NULL || revokeFlags != NCCL_REVOKE_DEFAULT) return ncclInvalidArgument;
  ++revokeCalls;
  return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclCommShrink, ncclComm_t comm, int* excludeRanksList, int excludeRanksCount,
         ncclComm_t* newcomm, ncclConfig_t* config, int shrinkFlags);
ncclResult_t ncclCommShrink(ncclComm_t comm, int* excludeRanksList, int excludeRanksCount,
                            ncclComm_t* newcomm, ncclConfig_t* config, int shrinkFlags) {
  if (!ready(comm) || newcomm == NULL || excludeRanksCount < 0 || excludeRanksCount >= comm->nranks ||
      (excludeRanksCount > 0 && excludeRanksList == NULL)) {
    return ncclInvalidArgument;
  }
  int below = 0;
  for (int i = 0; i < excludeRanksCount; ++i) {
    if (excludeRanksList[i] == comm->rank) {
      *newcomm = NULL;  /* an excluded rank gets no child */
      return ncclSuccess;
    }
    below += excludeRanksList[i] < comm->rank;
  }
  ++shrinkCalls;
  if (shrinkFlags & NCCL_SHRINK_ABORT) ++shrinkAbortCalls;
  int blocking = config ? config->blocking != 0 : comm->blocking;
  *newcomm = newComm(comm->nranks - excludeRanksCount, comm->rank - below, blocking);
  return blocking ? ncclSuccess : ncclInProgress;
}
