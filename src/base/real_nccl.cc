// Finding the real NCCL (docs/design.md, "Finding the real NCCL", nccl-abi.md §1.3).
//
// Why this order: a libnccl that is already mapped must win over everything, because two NCCLs
// in one process have disjoint state (a comm from one is garbage to the other, plugins load
// twice). So the already-loaded probes run first, even when FLASHCCL_NCCL_LIBRARY is set; the
// variable then only decides when nothing is loaded yet (and a mismatch is a WARN). Only after
// that do we load a library ourselves: the soname through the normal search path, then the pip
// layout beside our own file.
#include "base/real_nccl.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/config.h"
#include "base/reach.h"
#include "base/thread_state.h"
#include "base/log.h"
#include "base/nccl_version_text.h"

namespace flashccl {

std::string RealNccl::versionString() const { return ncclVersionText(version); }

namespace {

struct Discovery {
  std::once_flag once;
  std::atomic<bool> done{false};
  std::atomic<const RealNccl*> resolved{nullptr};
  RealNccl real;
  std::string error;
};

Discovery& discovery() {
  static Discovery* d = new Discovery();  // never destroyed: calls may arrive during exit
  return *d;
}

// Set while this thread resolves: libnccl's constructors may call its exports, which land in our
// shim and would re-enter std::call_once on the same thread (a deadlock).
thread_local bool tResolving = false;

std::string canonical(const std::string& path) {
  char buffer[PATH_MAX];
  if (realpath(path.c_str(), buffer)) return buffer;
  return path;
}

bool sameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void* ownBase() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&ownLibraryPath), &info) == 0) return nullptr;
  return info.dli_fbase;
}

// A library we may forward to: it has ncclGetVersion, it is not our own file (by load address and
// by inode: the same file may be reachable as libflashccl.so and as a libnccl.so.2 symlink), and
// it is not another copy of flashccl.
struct Candidate {
  void* handle = nullptr;  // null: functions are looked up with RTLD_NEXT
  std::string path;
  void* getVersion = nullptr;
};

bool vet(void* handle, void* getVersion, Candidate* out, std::string* why) {
  if (getVersion == nullptr) {
    *why = "no ncclGetVersion in it";
    return false;
  }
  Dl_info info;
  if (dladdr(getVersion, &info) == 0 || info.dli_fname == nullptr) {
    *why = "dladdr cannot place its ncclGetVersion";
    return false;
  }
  std::string path = info.dli_fname[0] ? canonical(info.dli_fname) : std::string("(main program)");
  if (info.dli_fbase == ownBase() || sameFile(path, ownLibraryPath())) {
    *why = path + " is flashccl itself";
    return false;
  }
  void* probe = handle ? handle : systemDlopen()(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (probe && dlsym(probe, "flashcclVersion") != nullptr) {
    if (!handle) dlclose(probe);
    *why = path + " is another flashccl, not NCCL";
    return false;
  }
  if (!handle && probe) handle = probe;  // keep the reference: the library stays mapped anyway
  out->handle = handle;
  out->path = path;
  out->getVersion = getVersion;
  return true;
}

void* versionSymbol(void* handle) {
  void* sym = dlsym(handle, "pncclGetVersion");
  return sym ? sym : dlsym(handle, "ncclGetVersion");
}

// Opens `name` with `flags` and vets it; on failure appends the reason to *why.
bool tryOpen(const char* name, int flags, Candidate* out, std::string* why) {
  dlerror();
  void* handle = systemDlopen()(name, flags);  // never the redirect (base/reach.h)
  if (handle == nullptr) {
    const char* err = dlerror();
    *why = (flags & RTLD_NOLOAD) ? std::string("not loaded") : std::string(err ? err : "failed");
    return false;
  }
  if (!vet(handle, versionSymbol(handle), out, why)) {
    dlclose(handle);
    return false;
  }
  return true;
}

int collectLoaded(struct dl_phdr_info* info, size_t, void* data) {
  const char* name = info->dlpi_name;
  if (name == nullptr || name[0] == '\0') return 0;
  const char* base = std::strrchr(name, '/');
  base = base ? base + 1 : name;
  if (std::strncmp(base, "libnccl.so", 10) == 0) {
    static_cast<std::vector<std::string>*>(data)->push_back(name);
  }
  return 0;
}

// Steps 2-4: a libnccl that is already part of this process.
bool findLoaded(Candidate* out, std::string* how, std::vector<std::string>* tried) {
  std::string why;
  void* next = dlsym(RTLD_NEXT, "pncclGetVersion");
  if (next == nullptr) next = dlsym(RTLD_NEXT, "ncclGetVersion");
  if (next == nullptr) {
    tried->push_back("dlsym(RTLD_NEXT, pncclGetVersion): not found (no libnccl in the global scope "
                     "after flashccl)");
  } else if (vet(nullptr, next, out, &why)) {
    *how = "dlsym(RTLD_NEXT)";
    return true;
  } else {
    tried->push_back("dlsym(RTLD_NEXT, pncclGetVersion): " + why);
  }

  if (tryOpen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD, out, &why)) {
    *how = "dlopen(libnccl.so.2, RTLD_NOLOAD)";
    return true;
  }
  tried->push_back("dlopen(libnccl.so.2, RTLD_NOLOAD): " + why);

  std::vector<std::string> loaded;
  dl_iterate_phdr(collectLoaded, &loaded);
  if (loaded.empty()) tried->push_back("loaded objects (dl_iterate_phdr): no libnccl.so*");
  for (const std::string& name : loaded) {
    if (tryOpen(name.c_str(), RTLD_NOW | RTLD_NOLOAD, out, &why)) {
      *how = "already loaded (dl_iterate_phdr)";
      return true;
    }
    tried->push_back("loaded object " + name + ": " + why);
  }
  return false;
}

std::string directoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

void resolveFunctions(const Candidate& lib, RealNccl* real) {
  auto lookup = [&](const char* name) -> void* {
    std::string profiled = std::string("p") + name;
    void* handle = lib.handle ? lib.handle : RTLD_NEXT;
    void* sym = dlsym(handle, profiled.c_str());
    return sym ? sym : dlsym(handle, name);
  };
#define FLASHCCL_RESOLVE(name, params, args) \
  real->name = reinterpret_cast<decltype(real->name)>(lookup(#name));
  NCCL_RESULT_FUNCTIONS(FLASHCCL_RESOLVE)
#undef FLASHCCL_RESOLVE
#define FLASHCCL_RESOLVE_OTHER(ret, name, params, args) \
  real->name = reinterpret_cast<decltype(real->name)>(lookup(#name));
  NCCL_OTHER_FUNCTIONS(FLASHCCL_RESOLVE_OTHER)
#undef FLASHCCL_RESOLVE_OTHER
}

void resolve(Discovery& d) {
  const Config& config = Config::get();
  std::vector<std::string> tried;
  Candidate lib;
  std::string how, why;

  bool found = findLoaded(&lib, &how, &tried);
  const std::string& configured = config.ncclLibrary;
  if (!configured.empty()) {
    if (found) {
      if (sameFile(configured, lib.path)) {
        how = "FLASHCCL_NCCL_LIBRARY";
      } else {
        FCCL_WARN("FLASHCCL_NCCL_LIBRARY=%s ignored: %s is already loaded in this process (found "
                  "by %s), and a second NCCL would not share its communicators. Using the loaded "
                  "one.",
                  configured.c_str(), lib.path.c_str(), how.c_str());
      }
    } else if (tryOpen(configured.c_str(), RTLD_NOW | RTLD_LOCAL, &lib, &why)) {
      found = true;
      how = "FLASHCCL_NCCL_LIBRARY";
    } else {
      // An explicit choice that fails is an error, not a reason to pick some other library.
      tried.insert(tried.begin(), "FLASHCCL_NCCL_LIBRARY=" + configured + ": " + why);
      d.error = "cannot load FLASHCCL_NCCL_LIBRARY=" + configured + " (" + why + ")";
    }
  } else if (!found) {
    // The application's own dlopen of an NCCL, given flashccl by the redirect: the library it
    // named is the NCCL it meant (vLLM passes the path of the one PyTorch bundles).
    const std::string requested = redirectedNcclRequest();
    if (!requested.empty() && requested != "libnccl.so.2") {
      if (tryOpen(requested.c_str(), RTLD_NOW | RTLD_LOCAL, &lib, &why)) {
        found = true;
        how = "the application's dlopen(" + requested + ")";
      } else {
        tried.push_back("the application's dlopen(" + requested + "): " + why);
      }
    }
  }
  if (!found && configured.empty()) {
    if (tryOpen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL, &lib, &why)) {
      found = true;
      how = "dlopen(libnccl.so.2)";
    } else {
      tried.push_back("dlopen(libnccl.so.2): " + why);
      // pip: site-packages/flashccl/lib/libflashccl.so next to site-packages/nvidia/nccl/lib.
      std::string pip = directoryOf(ownLibraryPath()) + "/../../nvidia/nccl/lib/libnccl.so.2";
      if (tryOpen(pip.c_str(), RTLD_NOW | RTLD_LOCAL, &lib, &why)) {
        found = true;
        how = "pip nvidia-nccl beside flashccl";
      } else {
        tried.push_back("pip layout " + pip + ": " + why);
      }
    }
  }

  if (!found) {
    std::string steps;
    for (size_t i = 0; i < tried.size(); ++i) {
      steps += "\n  " + std::to_string(i + 1) + ". " + tried[i];
    }
    if (d.error.empty()) d.error = "cannot find the real NCCL (libnccl.so.2)";
    FCCL_WARN("%s: every NCCL call will return ncclSystemError. Tried:%s%s", d.error.c_str(),
              steps.c_str(),
              configured.empty() ? "\n  Set FLASHCCL_NCCL_LIBRARY to the path of libnccl.so.2, "
                                   "or add its directory to LD_LIBRARY_PATH."
                                 : "");
    d.error += ". Tried:" + steps;
    return;
  }

  RealNccl& real = d.real;
  real.handle = lib.handle;
  real.path = lib.path;
  real.how = how;
  resolveFunctions(lib, &real);
  if (real.ncclGetVersion) {
    ForwardScope scope;
    real.ncclGetVersion(&real.version);
  }
  d.resolved.store(&real, std::memory_order_release);

  const char* mode = config.disable ? " [FLASHCCL_DISABLE=1: pure pass-through]" : "";
  if (logEnabled(LogLevel::kInfo, kLogInit)) {
    logMessage(LogLevel::kInfo, kLogInit, __FILE__, __LINE__,
               "flashccl %s active over NCCL %s (%s, found by %s; flashccl reached by %s)%s",
               FLASHCCL_VERSION_STRING, real.versionString().c_str(), real.path.c_str(),
               how.c_str(), howFlashcclWasReached().c_str(), mode);
  } else if (logEnabled(LogLevel::kVersion, kLogInit) && !logEnabled(LogLevel::kInfo, kLogAll)) {
    // NCCL prints its version line at NCCL_DEBUG=VERSION and WARN; so do we, but only when the
    // user asked for a level (not for the WARN-to-stderr default).
    const char* level = getEnv("FLASHCCL_DEBUG");
    if (!level || !*level) level = getEnv("NCCL_DEBUG");
    if (level && *level) {
      logMessage(LogLevel::kVersion, kLogInit, __FILE__, __LINE__,
                 "flashccl %s active over NCCL %s (%s)%s", FLASHCCL_VERSION_STRING,
                 real.versionString().c_str(), real.path.c_str(), mode);
    }
  }
}

}  // namespace

const RealNccl* realNccl() {
  Discovery& d = discovery();
  if (d.done.load(std::memory_order_acquire)) return d.resolved.load(std::memory_order_relaxed);
  if (tResolving) return nullptr;
  std::call_once(d.once, [&d] {
    tResolving = true;
    resolve(d);
    tResolving = false;
    d.done.store(true, std::memory_order_release);
  });
  return d.resolved.load(std::memory_order_acquire);
}

ncclResult_t missingRealFunction(const char* name) {
  const RealNccl* real = realNccl();
  FCCL_WARN("%s is not available in the loaded NCCL %s (%s); returning ncclInvalidUsage", name,
            real ? real->versionString().c_str() : "(none)", real ? real->path.c_str() : "-");
  return ncclInvalidUsage;
}

const std::string& realNcclError() {
  realNccl();
  return discovery().error;
}

const std::string& ownLibraryPath() {
  static const std::string path = [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&ownLibraryPath), &info) && info.dli_fname &&
        info.dli_fname[0]) {
      return canonical(info.dli_fname);
    }
    return canonical("/proc/self/exe");  // linked into an executable (tools, unit tests)
  }();
  return path;
}

}  // namespace flashccl
