// How flashccl was reached, and the dlopen redirect's record (docs/design.md, "Reaching every
// NCCL user").
#include "base/reach.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/config.h"
#include "base/log.h"
#include "base/real_nccl.h"

namespace flashccl {

namespace {

const char* baseName(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

bool sameFile(const char* a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a, &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

struct RedirectRecord {
  std::mutex mutex;
  std::string firstRequest;
};

RedirectRecord& redirectRecord() {
  static RedirectRecord* record = new RedirectRecord();  // never destroyed: dlopen runs at exit
  return *record;
}

// dl_iterate_phdr callback: does any loaded object list libflashccl.so* in its DT_NEEDED?
struct NeededSearch {
  bool found = false;
};

int searchNeeded(struct dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<NeededSearch*>(data);
  for (int i = 0; i < info->dlpi_phnum && !search->found; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* dynamic =
        reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    const char* strings = nullptr;
    for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
      // ld.so has already relocated DT_STRTAB to an address on x86-64 and aarch64.
      if (d->d_tag == DT_STRTAB) strings = reinterpret_cast<const char*>(d->d_un.d_ptr);
    }
    if (strings == nullptr) continue;
    for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
      if (d->d_tag == DT_NEEDED &&
          std::strncmp(baseName(strings + d->d_un.d_val), "libflashccl.so", 14) == 0) {
        search->found = true;
      }
    }
  }
  return search->found ? 1 : 0;
}

}  // namespace

DlopenFunction systemDlopen() {
  static std::atomic<DlopenFunction> next{nullptr};
  DlopenFunction fn = next.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<DlopenFunction>(dlsym(RTLD_NEXT, "dlopen"));
    // Linked into an executable that defines no dlopen of its own, RTLD_NEXT still finds libc's;
    // the default scope is the last resort (it can only be libc's or ours, and ours forwards).
    if (fn == nullptr) fn = reinterpret_cast<DlopenFunction>(dlsym(RTLD_DEFAULT, "dlopen"));
    next.store(fn, std::memory_order_release);
  }
  return fn;
}

bool dlopenRedirectEnabled() {
  static const bool enabled = [] {
    bool value = true;
    for (const EnvParam& param : envParams()) {
      if (std::strcmp(param.name, "FLASHCCL_DLOPEN") == 0) parseBool(param.defaultValue, &value);
    }
    const char* text = getEnv("FLASHCCL_DLOPEN");
    if (text != nullptr && *text != '\0' && !parseBool(text, &value)) {
      FCCL_WARN("FLASHCCL_DLOPEN=%s is not a switch (0/1, yes/no, on/off); the redirect stays on",
                text);
      value = true;
    }
    return value;
  }();
  return enabled;
}

bool isNcclLibraryName(const char* file) {
  return file != nullptr && std::strncmp(baseName(file), "libnccl.so", 10) == 0;
}

bool preloadedByLdPreload() {
  static const bool preloaded = [] {
    const char* list = std::getenv("LD_PRELOAD");
    if (list == nullptr) return false;
    const std::string& own = ownLibraryPath();
    const char* ownName = baseName(own.c_str());
    std::string entries(list);
    size_t start = 0;
    while (start <= entries.size()) {
      // ld.so splits LD_PRELOAD on spaces and colons alike.
      size_t end = entries.find_first_of(": ", start);
      if (end == std::string::npos) end = entries.size();
      std::string entry = entries.substr(start, end - start);
      if (!entry.empty()) {
        bool byPath = entry.find('/') != std::string::npos;
        if (byPath ? sameFile(entry.c_str(), own) : entry == ownName) return true;
      }
      start = end + 1;
    }
    return false;
  }();
  return preloaded;
}

void noteRedirectedDlopen(const char* requested) {
  RedirectRecord& record = redirectRecord();
  std::lock_guard<std::mutex> lock(record.mutex);
  if (record.firstRequest.empty() && requested != nullptr) record.firstRequest = requested;
}

std::string redirectedNcclRequest() {
  RedirectRecord& record = redirectRecord();
  std::lock_guard<std::mutex> lock(record.mutex);
  return record.firstRequest;
}

std::string howFlashcclWasReached() {
  if (preloadedByLdPreload()) {
    std::string request = redirectedNcclRequest();
    return request.empty() ? "LD_PRELOAD" : "LD_PRELOAD, and the application's dlopen(" + request + ")";
  }
  NeededSearch search;
  dl_iterate_phdr(searchNeeded, &search);
  return search.found ? "linked (DT_NEEDED)" : "dlopen by path";
}

}  // namespace flashccl
