// How flashccl came into the process, and what the dlopen redirect has done (docs/design.md,
// "Reaching every NCCL user"). The INFO line at first use names the way in.
#pragma once

#include <string>

namespace flashccl {

using DlopenFunction = void* (*)(const char* file, int flags);

// The C library's dlopen: the next definition after flashccl's interposer. flashccl's own loading
// of the real NCCL goes through this, never through the interposer, so it cannot loop.
DlopenFunction systemDlopen();

// True when the last path component of `file` starts with "libnccl.so" (libnccl.so,
// libnccl.so.2, libnccl.so.2.28.9): the names the redirect answers for.
bool isNcclLibraryName(const char* file);

// FLASHCCL_DLOPEN (declared with every variable in base/config.cc): whether the redirect is on.
// Read at the first dlopen of a libnccl.so*, not with the rest of the configuration, which must
// not be frozen by the dlopen calls a process makes before the application sets its variables.
bool dlopenRedirectEnabled();

// True when LD_PRELOAD names flashccl's own file (by path or by file name).
bool preloadedByLdPreload();

// Records that the application's dlopen(`requested`) was given flashccl; the first such name is
// the real NCCL discovery tries before the plain soname (the application chose that NCCL).
void noteRedirectedDlopen(const char* requested);
std::string redirectedNcclRequest();  // empty when no dlopen was redirected

// "LD_PRELOAD", "a redirected dlopen(libnccl.so.2)", "linked (DT_NEEDED)" or "dlopen by path".
std::string howFlashcclWasReached();

}  // namespace flashccl
