// The real NCCL: found lazily at first use (docs/design.md, "Finding the real NCCL"), never ourselves, never a second copy.
//
// Order: an already-loaded libnccl (dlsym(RTLD_NEXT), dlopen RTLD_NOLOAD, then dl_iterate_phdr);
// FLASHCCL_NCCL_LIBRARY (a path); the library the application's redirected dlopen named
// (base/reach.h); only then dlopen("libnccl.so.2") and the pip nvidia/nccl/lib folder beside our
// own library. If nothing is found every call returns
// ncclSystemError, with one WARN saying what was tried.
#pragma once

#include <string>

#include "base/nccl_functions.h"

namespace flashccl {

struct RealNccl {
  // Each pointer is the real library's pncclX (or ncclX); nullptr when this NCCL lacks it.
#define FLASHCCL_REAL_PTR(name, params, args) ncclResult_t(*name) params = nullptr;
  NCCL_RESULT_FUNCTIONS(FLASHCCL_REAL_PTR)
#undef FLASHCCL_REAL_PTR
#define FLASHCCL_REAL_PTR_OTHER(ret, name, params, args) ret(*name) params = nullptr;
  NCCL_OTHER_FUNCTIONS(FLASHCCL_REAL_PTR_OTHER)
#undef FLASHCCL_REAL_PTR_OTHER

  void* handle = nullptr;  // dlopen handle (RTLD_NOLOAD or a fresh load); null for RTLD_NEXT
  std::string path;        // file the functions come from
  std::string how;         // which discovery step found it, for the banner
  int version = 0;         // NCCL_VERSION_CODE of the loaded library, e.g. 22803
  std::string versionString() const;  // "2.28.3"
};

// The resolved library, or nullptr when none could be found (the WARN has been printed).
// Thread-safe; resolves once per process.
const RealNccl* realNccl();

// Why the last resolution failed (empty when it succeeded). For error messages and tests.
const std::string& realNcclError();

// For an export the loaded NCCL lacks (e.g. ncclCommRevoke before 2.28.9): one WARN naming the
// function and the real version, and the ncclInvalidUsage the caller returns.
ncclResult_t missingRealFunction(const char* name);

// Path of the file that holds flashccl's own code (for "never ourselves" and for finding
// files installed beside it, like the pip NCCL and the shipped algorithms).
const std::string& ownLibraryPath();

}  // namespace flashccl
