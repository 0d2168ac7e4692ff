// The types of NCCL 2.32.3's API that an older nccl.h lacks, so flashccl exports the whole 2.32.3
// API (base/nccl_functions.h) whichever nccl.h it is built against (docs/design.md, "The NCCL
// ABI flashccl exports"). Copied from NCCL 2.32.3's nccl.h (third_party/nccl/include, BSD-3):
// the layouts must be NCCL's, which the static_asserts below and tests/compat (built against
// that header, with the same asserts) check. With a 2.32 or newer nccl.h this adds nothing.
#pragma once

#include <nccl.h>
#include <stddef.h>
#include <stdint.h>

// The NCCL release whose API flashccl exports.
#define FLASHCCL_NCCL_API_VERSION_CODE 23203

#ifndef NCCL_API_MAGIC
#define NCCL_API_MAGIC 0xcafebeef
#endif

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 32, 0)
extern "C" {
typedef struct ncclConfigExt {
  struct ncclConfigExt* next;
  struct {
    int vendorId;
    int optionId;
  } key;
  union {
    int i;
    const char* s;
    void* raw;
  } val;
} ncclConfigExt_t;

typedef struct ncclCollConfig_v23200 {
  size_t size;
  unsigned int magic;
  unsigned int version;
  ncclConfigExt_t* ext;
  int minCTAs;
  int maxCTAs;
  int nvlsCTAs;
  int cgaClusterSize;
  const char* algSelection;
  int forceAlgSelection;
  int CTAPolicy;
  uint64_t userProfilerTag;
  cudaEvent_t launchCompletionEvent;
} ncclCollConfig_t;

typedef enum {
  ncclStatGpuMemSuspend = 0,
  ncclStatGpuMemSuspended = 1,
  ncclStatGpuMemPersist = 2,
  ncclStatGpuMemTotal = 3
} ncclCommMemStat_t;

typedef struct {
  int opCnt;
  int peer;
  int sigIdx;
  int ctx;
} ncclWaitSignalDesc_t;

typedef struct ncclEncryptionConfig_v23200 {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int mode;
  const char* psk;
} ncclEncryptionConfig_t;

typedef struct ncclParamHandle* ncclParamHandle_t;
}
#endif

// NCCL 2.32.3's layout of the per-call config, the one struct whose fields flashccl reads
// (runtime/coll_config.cc).
static_assert(sizeof(ncclCollConfig_t) == 72, "ncclCollConfig_t is not NCCL 2.32.3's");
static_assert(offsetof(ncclCollConfig_t, ext) == 16 && offsetof(ncclCollConfig_t, minCTAs) == 24 &&
                  offsetof(ncclCollConfig_t, cgaClusterSize) == 36 &&
                  offsetof(ncclCollConfig_t, algSelection) == 40 &&
                  offsetof(ncclCollConfig_t, CTAPolicy) == 52 &&
                  offsetof(ncclCollConfig_t, userProfilerTag) == 56 &&
                  offsetof(ncclCollConfig_t, launchCompletionEvent) == 64,
              "ncclCollConfig_t is not NCCL 2.32.3's");
static_assert(sizeof(ncclWaitSignalDesc_t) == 16 && sizeof(ncclEncryptionConfig_t) == 32,
              "NCCL 2.32.3's signal and encryption structs");
