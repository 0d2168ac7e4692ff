// NCCL-style logging. Settings are parsed once (and again on logReset()) into a few atomics, so
// a disabled log line costs one relaxed load and a compare.
//
// One deliberate difference from NCCL: with NCCL_DEBUG and FLASHCCL_DEBUG both unset, WARN lines
// still go to stderr. flashccl sits invisibly inside other people's processes; when it cannot find
// the real NCCL, or has to fall back for a reason the user should know about, silence would leave
// them with nothing but an error code. An explicit NCCL_DEBUG=VERSION (or FLASHCCL_DEBUG=VERSION)
// silences them.
#include "base/log.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <strings.h>

#include "base/config.h"

namespace flashccl {

namespace {

struct LogSettings {
  std::atomic<bool> parsed{false};
  std::atomic<int> level{static_cast<int>(LogLevel::kWarn)};
  std::atomic<uint32_t> mask{kLogInit | kLogEnv};
  std::atomic<FILE*> out{nullptr};
  std::atomic<bool> sharesNcclFile{false};  // out is a duplicate of the real NCCL's descriptor
  std::mutex parseMutex;
  char host[64] = "";
};

LogSettings& settings() {
  // Never destroyed: NCCL threads may still log while the process exits.
  static LogSettings* s = new LogSettings();
  return *s;
}

bool parseLevel(const char* text, LogLevel* level) {
  static const struct {
    const char* name;
    LogLevel level;
  } kLevels[] = {{"VERSION", LogLevel::kVersion}, {"WARN", LogLevel::kWarn},
                 {"INFO", LogLevel::kInfo},       {"ABORT", LogLevel::kVersion},
                 {"TRACE", LogLevel::kTrace}};
  for (const auto& entry : kLevels) {
    if (strcasecmp(text, entry.name) == 0) {
      *level = entry.level;
      return true;
    }
  }
  return false;
}

uint32_t subsysBit(const std::string& name) {
  static const struct {
    const char* name;
    uint32_t bit;
  } kSubsys[] = {{"INIT", kLogInit},   {"COLL", kLogColl},   {"P2P", kLogP2p},
                 {"TUNING", kLogTune}, {"ENV", kLogEnv},     {"ALLOC", kLogAlloc},
                 {"GRAPH", kLogGraph}, {"CALL", kLogCall},   {"ALL", kLogAll}};
  for (const auto& entry : kSubsys) {
    if (strcasecmp(name.c_str(), entry.name) == 0) return entry.bit;
  }
  return 0;  // NCCL-only names (NET, BOOTSTRAP, PROXY, ...): nothing of ours
}

// NCCL_DEBUG_SUBSYS: "INIT,COLL" selects, "^COLL,P2P" selects everything else.
uint32_t parseSubsys(const char* text) {
  bool invert = text[0] == '^';
  uint32_t mask = 0;
  std::string list(text + (invert ? 1 : 0));
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    mask |= subsysBit(list.substr(start, comma - start));
    start = comma + 1;
  }
  return invert ? ~mask : mask;
}

// An open descriptor of this process on `path` other than our own, or -1: the real NCCL's log
// file once it has opened it.
int findOpenDescriptor(const std::string& path, int ours) {
  struct stat target;
  if (stat(path.c_str(), &target) != 0) return -1;
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return -1;
  int found = -1;
  while (dirent* entry = readdir(fds)) {
    const int fd = std::atoi(entry->d_name);
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || fd == dirfd(fds) || fd == ours) continue;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino && (fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDONLY) {
      found = fd;
      break;
    }
  }
  closedir(fds);
  return found;
}

// NCCL_DEBUG_FILE: %h -> host name, %p -> pid, %% -> %. Opened as NCCL opens it (truncated,
// "w"). Once the real NCCL has the same file open, our lines go through a duplicate of its
// descriptor instead: one open file, one offset, so neither writer overwrites the other's lines
// (logReset() after NCCL's first init switches over).
FILE* openLogFile(const char* pattern, const char* host, FILE* current, bool* sharesNccl) {
  std::string path;
  for (const char* c = pattern; *c; ++c) {
    if (c[0] == '%' && c[1] == 'h') {
      path += host;
      ++c;
    } else if (c[0] == '%' && c[1] == 'p') {
      path += std::to_string(getpid());
      ++c;
    } else if (c[0] == '%' && c[1] == '%') {
      path += '%';
      ++c;
    } else {
      path += *c;
    }
  }
  const int ours = current != nullptr && current != stderr ? fileno(current) : -1;
  FILE* file = nullptr;
  const int ncclDescriptor = findOpenDescriptor(path, ours);
  if (ncclDescriptor >= 0) {
    const int shared = dup(ncclDescriptor);
    if (shared >= 0) file = fdopen(shared, "w");  // fdopen never truncates
    *sharesNccl = file != nullptr;
  } else if (ours >= 0) {
    return current;  // our own file, still the only one open on that path
  } else {
    file = std::fopen(path.c_str(), "w");
  }
  if (file) setvbuf(file, nullptr, _IOLBF, 0);
  return file;
}

void parseSettings(LogSettings& s) {
  if (s.host[0] == '\0') {
    gethostname(s.host, sizeof(s.host) - 1);
    if (char* dot = std::strchr(s.host, '.')) *dot = '\0';
  }
  // Level: FLASHCCL_DEBUG, else NCCL_DEBUG, else WARN (see the note at the top).
  LogLevel level = LogLevel::kWarn;
  const char* ours = getEnv("FLASHCCL_DEBUG");
  const char* nccl = getEnv("NCCL_DEBUG");
  if (ours && *ours && parseLevel(ours, &level)) {
  } else if (nccl && *nccl && parseLevel(nccl, &level)) {
  } else {
    level = LogLevel::kWarn;
  }
  const char* subsys = getEnv("NCCL_DEBUG_SUBSYS");
  uint32_t mask = (subsys && *subsys) ? parseSubsys(subsys) : (kLogInit | kLogEnv);

  FILE* out = stderr;
  bool sharesNccl = false;
  const char* file = getEnv("NCCL_DEBUG_FILE");
  if (file && *file && level >= LogLevel::kVersion) {
    if (FILE* opened = openLogFile(file, s.host, s.out.load(std::memory_order_relaxed), &sharesNccl)) out = opened;
  }
  s.sharesNcclFile.store(sharesNccl, std::memory_order_release);
  // The previous FILE*, if any, is left open: another thread may be writing to it right now.
  s.out.store(out, std::memory_order_relaxed);
  s.mask.store(mask, std::memory_order_relaxed);
  s.level.store(static_cast<int>(level), std::memory_order_relaxed);
  s.parsed.store(true, std::memory_order_release);
}

LogSettings& parsedSettings() {
  LogSettings& s = settings();
  if (!s.parsed.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(s.parseMutex);
    if (!s.parsed.load(std::memory_order_relaxed)) parseSettings(s);
  }
  return s;
}

// The CUDA device of this thread's current context, without creating one: only if libcuda is
// already loaded and a context is current. -1 otherwise.
int currentDeviceNoInit() {
  using GetCurrentFn = int (*)(void**);
  using GetDeviceFn = int (*)(int*);
  static std::atomic<GetCurrentFn> getCurrent{nullptr};
  static std::atomic<GetDeviceFn> getDevice{nullptr};
  GetCurrentFn current = getCurrent.load(std::memory_order_acquire);
  GetDeviceFn device = getDevice.load(std::memory_order_acquire);
  if (current == nullptr || device == nullptr) {
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (cuda == nullptr) return -1;
    current = reinterpret_cast<GetCurrentFn>(dlsym(cuda, "cuCtxGetCurrent"));
    device = reinterpret_cast<GetDeviceFn>(dlsym(cuda, "cuCtxGetDevice"));
    dlclose(cuda);  // drops only the reference NOLOAD took
    if (current == nullptr || device == nullptr) return -1;
    getCurrent.store(current, std::memory_order_release);
    getDevice.store(device, std::memory_order_release);
  }
  void* ctx = nullptr;
  int dev = -1;
  if (current(&ctx) != 0 || ctx == nullptr) return -1;
  if (device(&dev) != 0) return -1;
  return dev;
}

long threadId() {
  static thread_local long tid = syscall(SYS_gettid);
  return tid;
}

// The last WARN line and when it came, against the last error the real NCCL returned
// (ncclGetLastError answers with the newer one).
struct ErrorHistory {
  std::mutex mutex;
  char lastWarn[2048] = "";
  std::atomic<uint64_t> ticks{0};
  std::atomic<uint64_t> warnTick{0};
  std::atomic<uint64_t> ncclErrorTick{0};
};

ErrorHistory& errorHistory() {
  static ErrorHistory* h = new ErrorHistory();  // never destroyed, like the settings
  return *h;
}

void rememberWarn(const char* line) {
  ErrorHistory& h = errorHistory();
  std::lock_guard<std::mutex> lock(h.mutex);
  std::snprintf(h.lastWarn, sizeof(h.lastWarn), "%s", line);
  const size_t length = std::strlen(h.lastWarn);
  if (length > 0 && h.lastWarn[length - 1] == '\n') h.lastWarn[length - 1] = '\0';
  h.warnTick.store(h.ticks.fetch_add(1) + 1);
}

}  // namespace

void noteNcclError() {
  ErrorHistory& h = errorHistory();
  h.ncclErrorTick.store(h.ticks.fetch_add(1) + 1);
}

const char* newestOwnWarn() {
  ErrorHistory& h = errorHistory();
  const uint64_t ours = h.warnTick.load();
  if (ours == 0 || ours <= h.ncclErrorTick.load()) return nullptr;
  // A copy per thread, taken under the lock: another thread's WARN may be rewriting lastWarn now.
  static thread_local char copy[sizeof(h.lastWarn)];
  std::lock_guard<std::mutex> lock(h.mutex);
  std::memcpy(copy, h.lastWarn, sizeof(copy));
  return copy;
}

bool logEnabled(LogLevel level, uint32_t subsys) {
  const LogSettings& s = parsedSettings();
  if (static_cast<int>(level) > s.level.load(std::memory_order_relaxed)) return false;
  if (level == LogLevel::kInfo || level == LogLevel::kTrace) {
    return (s.mask.load(std::memory_order_relaxed) & subsys) != 0;
  }
  return true;
}

void logMessage(LogLevel level, uint32_t subsys, const char* file, int line, const char* fmt,
                ...) {
  LogSettings& s = parsedSettings();
  char buffer[2048];
  int used = 0;
  if (level == LogLevel::kVersion) {
    // Like NCCL's version line: no prefix.
  } else {
    const char* name = level == LogLevel::kWarn ? "WARN" : level == LogLevel::kInfo ? "INFO"
                                                                                     : "TRACE";
    used = std::snprintf(buffer, sizeof(buffer), "%s:%d:%ld [%d] flashccl %s ", s.host,
                         static_cast<int>(getpid()), threadId(), currentDeviceNoInit(), name);
    if (level == LogLevel::kTrace || level == LogLevel::kWarn) {
      const char* base = std::strrchr(file, '/');
      used += std::snprintf(buffer + used, sizeof(buffer) - used, "%s:%d ", base ? base + 1 : file,
                            line);
    }
  }
  if (used < 0) used = 0;
  if (used > static_cast<int>(sizeof(buffer)) - 2) used = sizeof(buffer) - 2;
  va_list args;
  va_start(args, fmt);
  int wrote = std::vsnprintf(buffer + used, sizeof(buffer) - used - 1, fmt, args);
  va_end(args);
  if (wrote > 0) used += wrote;
  if (used > static_cast<int>(sizeof(buffer)) - 2) used = sizeof(buffer) - 2;
  buffer[used++] = '\n';
  buffer[used] = '\0';
  FILE* out = s.out.load(std::memory_order_relaxed);
  std::fwrite(buffer, 1, used, out ? out : stderr);  // one call: lines from threads don't mix
  if (level == LogLevel::kWarn) rememberWarn(buffer);
}

void logReset() {
  LogSettings& s = settings();
  std::lock_guard<std::mutex> lock(s.parseMutex);
  parseSettings(s);
}

void adoptNcclLogFile() {
  LogSettings& s = settings();
  if (s.sharesNcclFile.load(std::memory_order_acquire)) return;
  const char* file = getEnv("NCCL_DEBUG_FILE");
  if (file == nullptr || *file == '\0') return;
  std::lock_guard<std::mutex> lock(s.parseMutex);
  if (!s.sharesNcclFile.load(std::memory_order_relaxed)) parseSettings(s);
}

}  // namespace flashccl
