// The one export outside nccl*/pnccl*/flashccl*: dlopen (docs/design.md, "Reaching every NCCL
// user"). vLLM, SGLang and other engines ctypes.CDLL("libnccl.so.2") and call through that
// handle, which LD_PRELOAD alone never reaches. Under LD_PRELOAD, an application's dlopen of any
// libnccl.so* is given flashccl's own file instead, so the handle resolves to flashccl's exports;
// FLASHCCL_DLOPEN=0 turns that off. Every other dlopen, and every dlopen when flashccl is not
// preloaded, is the C library's, unchanged.
#include <atomic>

#include "base/log.h"
#include "base/reach.h"
#include "base/real_nccl.h"
#include "shim/forward.h"

namespace {

// The file to open for the application's dlopen(file): flashccl's own for a libnccl.so* under
// LD_PRELOAD, else `file` itself. flashccl's discovery of the real NCCL calls systemDlopen()
// directly and never arrives here.
const char* dlopenTarget(const char* file) {
  // The name test first: most dlopen calls (Python's extension modules) end here.
  if (!flashccl::isNcclLibraryName(file) || !flashccl::preloadedByLdPreload()) return file;
  if (!flashccl::dlopenRedirectEnabled()) return file;
  flashccl::noteRedirectedDlopen(file);
  static std::atomic<bool> announced{false};
  if (!announced.exchange(true)) {
    FCCL_INFO(flashccl::kLogInit,
              "dlopen(%s) by the application gives flashccl (%s); FLASHCCL_DLOPEN=0 turns this off",
              file, flashccl::ownLibraryPath().c_str());
  }
  return flashccl::ownLibraryPath().c_str();
}

}  // namespace

// A tail call, so the C library's dlopen sees the application's return address: a name without a
// slash is searched with the RUNPATH of the object that called dlopen, and that must stay the
// application's object, not flashccl (tests/unit/dlopen_redirect_test.cc checks it).
extern "C" __attribute__((visibility("default"))) void* dlopen(const char* file, int flags) {
  flashccl::DlopenFunction next = flashccl::systemDlopen();
  const char* target = dlopenTarget(file);
#if defined(__clang__)
  [[clang::musttail]] return next(target, flags);
#else
  return next(target, flags);  // -O2 makes this a sibling call; the test fails if it does not
#endif
}
