/* A small NCCL application for the shim tests. It runs the commands given on its command line,
 * in order, printing one "command=result" line each, and exits 0 unless a command is unknown.
 *
 * Built three ways (tests/unit/CMakeLists.txt):
 *   nccl_probe_nccl      linked with -lnccl (the usual app; the shim comes in by LD_PRELOAD)
 *   nccl_probe_flashccl  linked with -lflashccl instead of NCCL
 *   nccl_probe_dlopen    linked with neither: loads $PROBE_NCCL with dlopen(RTLD_LOCAL), as
 *                        PyTorch does, and calls everything through dlsym(RTLD_DEFAULT).
 *   nccl_probe_handle    linked with neither: loads $PROBE_NCCL with dlopen(RTLD_LOCAL) and
 *                        calls everything through that handle, as vLLM's and SGLang's
 *                        ctypes.CDLL(path) wrappers do. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nccl.h>

#if defined(PROBE_HANDLE)
#define PROBE_DLOPEN
#define PROBE_SCOPE probeHandle
#else
#define PROBE_SCOPE RTLD_DEFAULT
#endif
static void* probeHandle = NULL; /* the dlopen handle of $PROBE_NCCL, for PROBE_HANDLE */

#ifdef PROBE_DLOPEN
static void* mustSym(const char* name) {
  void* sym = dlsym(PROBE_SCOPE, name);
  if (!sym) {
    printf("missing=%s\n", name);
    exit(3);
  }
  return sym;
}
#define FN(name) ((__typeof__(&name))mustSym(#name))
#else
#define FN(name) name
#endif

/* flashccl's own API, when a flashccl is in the process. */
static void* flashccl(const char* name) { return dlsym(PROBE_SCOPE, name); }

static ncclComm_t comms[8];
static int ncomms = 0;
#define COMM (ncomms > 0 ? comms[ncomms - 1] : NULL)

static ncclUniqueId uniqueId(void) {
  ncclUniqueId id;
  memset(&id, 0, sizeof(id));
  FN(ncclGetUniqueId)(&id);
  return id;
}

static int run(const char* cmd) {
  ncclResult_t r;
  if (!strcmp(cmd, "version")) {
    int v = 0;
    r = FN(ncclGetVersion)(&v);
    printf("version=%d,%d\n", (int)r, v);
  } else if (!strcmp(cmd, "errstr")) {
    printf("errstr=%s\n", FN(ncclGetErrorString)(ncclInvalidUsage));
  } else if (!strcmp(cmd, "lasterror")) {
    const char* text = FN(ncclGetLastError)(NULL);
    printf("lasterror=%s\n", text ? text : "(null)");
  } else if (!strcmp(cmd, "uniqueid")) {
    ncclUniqueId id;
    memset(&id, 0, sizeof(id));
    r = FN(ncclGetUniqueId)(&id);
    int nonzero = 0;
    for (size_t i = 0; i < sizeof(id.internal); ++i) nonzero += id.internal[i] != 0;
    printf("uniqueid=%d,%s\n", (int)r, nonzero ? "set" : "empty");
  } else if (!strcmp(cmd, "initrank1")) { /* one rank: the real NCCL fails without a GPU */
    ncclComm_t comm = NULL;
    r = FN(ncclCommInitRank)(&comm, 1, uniqueId(), 0);
    printf("initrank1=%d,%s\n", (int)r, FN(ncclGetErrorString)(r));
    if (r == ncclSuccess) comms[ncomms++] = comm;
  } else if (!strcmp(cmd, "init")) { /* rank 0 of 2 */
    ncclComm_t comm = NULL;
    r = FN(ncclCommInitRank)(&comm, 2, uniqueId(), 0);
    printf("init=%d\n", (int)r);
    if (comm) comms[ncomms++] = comm;
  } else if (!strcmp(cmd, "initnb")) { /* non-blocking */
    ncclComm_t comm = NULL;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    r = FN(ncclCommInitRankConfig)(&comm, 2, uniqueId(), 1, &config);
    printf("initnb=%d\n", (int)r);
    if (comm) comms[ncomms++] = comm;
  } else if (!strcmp(cmd, "initall")) {
    ncclComm_t two[2] = {NULL, NULL};
    r = FN(ncclCommInitAll)(two, 2, NULL);
    printf("initall=%d\n", (int)r);
    if (r == ncclSuccess) comms[ncomms++] = two[0], comms[ncomms++] = two[1];
  } else if (!strcmp(cmd, "split")) {
    ncclComm_t comm = NULL;
    r = FN(ncclCommSplit)(COMM, 0, 0, &comm, NULL);
    printf("split=%d\n", (int)r);
    if (comm) comms[ncomms++] = comm;
  } else if (!strcmp(cmd, "splitnocolor")) {
    ncclComm_t comm = (ncclComm_t)0x1;
    r = FN(ncclCommSplit)(COMM, NCCL_SPLIT_NOCOLOR, 0, &comm, NULL);
    printf("splitnocolor=%d,%s\n", (int)r, comm ? "comm" : "null");
  } else if (!strcmp(cmd, "groupstart")) {
    printf("groupstart=%d\n", (int)FN(ncclGroupStart)());
  } else if (!strcmp(cmd, "groupend")) {
    printf("groupend=%d\n", (int)FN(ncclGroupEnd)());
  } else if (!strcmp(cmd, "poll")) {
    ncclResult_t async = ncclInternalError;
    r = FN(ncclCommGetAsyncError)(COMM, &async);
    printf("poll=%d,%d\n", (int)r, (int)async);
  } else if (!strcmp(cmd, "allreduce")) {
    printf("allreduce=%d\n",
           (int)FN(ncclAllReduce)((void*)64, (void*)64, 16, ncclFloat32, ncclSum, COMM, NULL));
  } else if (!strcmp(cmd, "allreduce0")) {
    printf("allreduce0=%d\n",
           (int)FN(ncclAllReduce)((void*)64, (void*)64, 0, ncclFloat32, ncclSum, COMM, NULL));
  } else if (!strcmp(cmd, "allgather")) {
    printf("allgather=%d\n", (int)FN(ncclAllGather)((void*)64, (void*)64, 16, ncclFloat32, COMM, NULL));
  } else if (!strcmp(cmd, "reducescatter")) {
    printf("reducescatter=%d\n",
           (int)FN(ncclReduceScatter)((void*)64, (void*)64, 16, ncclFloat32, ncclSum, COMM, NULL));
  } else if (!strcmp(cmd, "bcast")) {
    printf("bcast=%d\n", (int)FN(ncclBcast)((void*)64, 16, ncclFloat32, 0, COMM, NULL));
  } else if (!strcmp(cmd, "premulsum")) {
    ncclRedOp_t op;
    float scalar = 0.5f;
    r = FN(ncclRedOpCreatePreMulSum)(&op, &scalar, ncclFloat32, ncclScalarHostImmediate, COMM);
    printf("premulsum=%d\n", (int)r);
    if (r == ncclSuccess) printf("redopdestroy=%d\n", (int)FN(ncclRedOpDestroy)(op, COMM));
  } else if (!strcmp(cmd, "revoke")) { /* looked up: an older libnccl.so.2 lacks it */
    __typeof__(&ncclCommRevoke) revoke = (__typeof__(&ncclCommRevoke))dlsym(RTLD_DEFAULT, "ncclCommRevoke");
    printf("revoke=%d\n", revoke ? (int)revoke(COMM, 0) : -99);
  } else if (!strcmp(cmd, "shrink")) {
    __typeof__(&ncclCommShrink) shrink = (__typeof__(&ncclCommShrink))dlsym(RTLD_DEFAULT, "ncclCommShrink");
    ncclComm_t comm = NULL;
    int exclude = 1;
    printf("shrink=%d\n", shrink ? (int)shrink(COMM, &exclude, 1, &comm, NULL, 0) : -99);
  } else if (!strcmp(cmd, "shrinkabort")) { /* rank 1 excluded, NCCL_SHRINK_ABORT; the child becomes COMM */
    __typeof__(&ncclCommShrink) shrink = (__typeof__(&ncclCommShrink))dlsym(RTLD_DEFAULT, "ncclCommShrink");
    ncclComm_t comm = NULL;
    int exclude = 1;
    printf("shrinkabort=%d\n", shrink ? (int)shrink(COMM, &exclude, 1, &comm, NULL, NCCL_SHRINK_ABORT) : -99);
    if (comm) comms[ncomms++] = comm;
  } else if (!strcmp(cmd, "lla2a")) {
    int (*calc)(int, int) = (int (*)(int, int))dlsym(RTLD_DEFAULT, "ncclLLA2ACalcSlots");
    printf("lla2a=%d\n", calc ? calc(16, 8) : -99);
  } else if (!strcmp(cmd, "destroy")) {
    printf("destroy=%d\n", (int)FN(ncclCommDestroy)(COMM));
    if (ncomms > 0) --ncomms;
  } else if (!strcmp(cmd, "abort")) {
    printf("abort=%d\n", (int)FN(ncclCommAbort)(COMM));
    if (ncomms > 0) --ncomms;
  } else if (!strcmp(cmd, "state") || !strcmp(cmd, "firststate")) { /* the last comm's, the first's */
    int (*state)(ncclComm_t, const char**) =
        (int (*)(ncclComm_t, const char**))flashccl("flashcclCommState");
    const char* why = NULL;
    int s = state ? state(cmd[0] == 'f' ? comms[0] : COMM, &why) : -99;
    printf("%s=%d,%s\n", cmd, s, why ? why : "");
  } else if (!strcmp(cmd, "last")) {
    const char* (*last)(ncclComm_t) = (const char* (*)(ncclComm_t))flashccl("flashcclLastAlgorithm");
    const char* name = last ? last(COMM) : "(no flashccl)";
    printf("last=%s\n", name ? name : "(null)");
  } else if (!strcmp(cmd, "plan")) {
    const char* (*plan)(ncclComm_t, int, size_t, ncclDataType_t, ncclRedOp_t, int, const char**) =
        (const char* (*)(ncclComm_t, int, size_t, ncclDataType_t, ncclRedOp_t, int,
                         const char**))flashccl("flashcclPlan");
    const char* why = NULL;
    const char* choice = plan ? plan(COMM, 0, 1024, ncclFloat32, ncclSum, 1, &why) : "(none)";
    printf("plan=%s,%s\n", choice, why ? why : "");
  } else if (!strcmp(cmd, "path")) {
    const char* (*path)(void) = (const char* (*)(void))flashccl("flashcclRealLibraryPath");
    printf("path=%s\n", path ? path() : "(no flashccl)");
  } else if (!strncmp(cmd, "realfn:", 7)) {
    void* (*real)(const char*) = (void* (*)(const char*))flashccl("flashcclRealFunction");
    printf("%s=%s\n", cmd, real ? (real(cmd + 7) ? "found" : "null") : "(no flashccl)");
  } else if (!strncmp(cmd, "allreduceconfig", 15)) {
    /* NCCL 2.32's per-call config form, looked up (this nccl.h may predate it), with NCCL 2.32.3's
     * ncclCollConfig_t as NCCL_COLLCONFIG_INITIALIZER fills it and a profiler tag; or, as
     * "allreduceconfig0", with a NULL config (the plain call). */
    typedef ncclResult_t (*ConfigAllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,
                                            ncclComm_t, cudaStream_t, const void*);
    struct {
      size_t size;
      unsigned int magic, version;
      void* ext;
      int minCTAs, maxCTAs, nvlsCTAs, cgaClusterSize;
      const char* algSelection;
      int forceAlgSelection, CTAPolicy;
      unsigned long long userProfilerTag;
      void* launchCompletionEvent;
    } config = {sizeof(config), 0xcafebeef, 23203, NULL, INT_MIN, INT_MIN, INT_MIN, INT_MIN,
                NULL, 1, INT_MIN, 7, NULL};
    ConfigAllReduce fn = (ConfigAllReduce)dlsym(PROBE_SCOPE, "ncclAllReduceConfig");
    printf("%s=%d\n", cmd,
           fn ? (int)fn((void*)64, (void*)64, 16, ncclFloat32, ncclSum, COMM, NULL,
                        cmd[15] == '0' ? NULL : &config)
              : -99);
  } else if (!strcmp(cmd, "grow")) { /* NCCL 2.32: an existing rank's call */
    typedef ncclResult_t (*Grow)(ncclComm_t, int, const ncclUniqueId*, int, ncclComm_t*, ncclConfig_t*);
    Grow grow = (Grow)dlsym(PROBE_SCOPE, "ncclCommGrow");
    ncclComm_t comm = NULL;
    printf("grow=%d\n", grow ? (int)grow(COMM, 3, NULL, -1, &comm, NULL) : -99);
  } else if (!strcmp(cmd, "handle")) { /* whose exports the handle gives */
    void* self = dlsym(PROBE_SCOPE, "flashcclVersion");
    printf("handle=%s\n", self ? "flashccl" : dlsym(PROBE_SCOPE, "fakeNcclCalls") ? "fake" : "other");
  } else if (!strncmp(cmd, "open:", 5)) { /* dlopen of a name, from this executable */
    void* lib = dlopen(cmd + 5, RTLD_NOW | RTLD_LOCAL);
    printf("%s=%s\n", cmd, lib ? "found" : dlerror());
  } else if (!strncmp(cmd, "fakecalls:", 10)) {
    /* FAKE_NCCL_FILE: the fake's own file, when FLASHCCL_NCCL_LIBRARY is not how it came in. */
    const char* file = getenv("FAKE_NCCL_FILE") ? getenv("FAKE_NCCL_FILE") : getenv("FLASHCCL_NCCL_LIBRARY");
    void* fake = dlopen(file, RTLD_NOW | RTLD_NOLOAD);
    int (*calls)(const char*) = fake ? (int (*)(const char*))dlsym(fake, "fakeNcclCalls") : NULL;
    printf("%s=%d\n", cmd, calls ? calls(cmd + 10) : -99);
  } else if (!strncmp(cmd, "faultcalls:", 11)) { /* fake_nccl_2289.c's counters */
    void* fake = dlopen(getenv("FLASHCCL_NCCL_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    int (*calls)(const char*) = fake ? (int (*)(const char*))dlsym(fake, "fakeNcclFaultCalls") : NULL;
    printf("%s=%d\n", cmd, calls ? calls(cmd + 11) : -99);
  } else {
    printf("unknown=%s\n", cmd);
    return 2;
  }
  fflush(stdout);
  return 0;
}

int main(int argc, char** argv) {
#ifdef PROBE_DLOPEN
  const char* lib = getenv("PROBE_NCCL");
  if (!lib || !(probeHandle = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
    printf("dlopen=failed\n");
    return 3;
  }
#endif
  for (int i = 1; i < argc; ++i) {
    int rc = run(argv[i]);
    if (rc) return rc;
  }
  return 0;
}
