// flashccl over whichever NCCL FLASHCCL_NCCL_LIBRARY names, on a machine without a GPU
// (tests/compat/run_matrix.sh runs it over NCCL 2.21.5, 2.27.7 and 2.32.3). It prints one
// key=value line per check; the script compares them with what that NCCL must give:
//   version=<result>,<code>       ncclGetVersion through flashccl: the loaded NCCL's version
//   uniqueid=<result>,set|empty   ncclGetUniqueId (socket bootstrap only, no GPU needed)
//   fn:<name>=found               every export of the vendored nccl.h that this NCCL has
//   fn:<name>=missing,<result>    one it lacks, called through flashccl: ncclInvalidUsage (5),
//                                 and the WARN naming it on stderr; `other` for an export that
//                                 returns something else (a neutral value, the same WARN)
//   oldconfig=<result>,untouched  ncclCommInitRankConfig with a config the size of NCCL 2.21's,
//                                 ending at a page with no access: flashccl reads nothing past
//                                 config->size (a read there would crash), writes nothing to it
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "base/nccl_functions.h"

extern "C" void* flashcclRealFunction(const char* name);

// Every row declared from the list itself: the device API's host functions are declared in
// nccl_device/core.h, which needs a CUDA compiler; the rest repeat nccl.h's declarations.
extern "C" {
#define FCCL_DECLARE(name, params, args) ncclResult_t name params;
NCCL_RESULT_FUNCTIONS(FCCL_DECLARE)
#undef FCCL_DECLARE
#define FCCL_DECLARE_OTHER(ret, name, params, args) ret name params;
NCCL_OTHER_FUNCTIONS(FCCL_DECLARE_OTHER)
#undef FCCL_DECLARE_OTHER
}

namespace {

// Every argument zero, but a per-call config is a real one: a NULL config makes nccl*Config the
// plain call, which every NCCL has, and the check is that the Config form is refused.
template <typename T>
T zeroArgument() {
  return T{};
}
template <>
const ncclCollConfig_t* zeroArgument<const ncclCollConfig_t*>() {
  static const ncclCollConfig_t config = NCCL_COLLCONFIG_INITIALIZER;
  return &config;
}

// Calls `fn` with zero arguments: only for a function the loaded NCCL lacks, which flashccl
// answers before it uses any argument.
template <typename... Args>
ncclResult_t callWithZeros(ncclResult_t (*fn)(Args...)) {
  return fn(zeroArgument<Args>()...);
}

// The exports that return something else answer with a neutral value and the same WARN.
template <typename R, typename... Args>
void callOther(R (*fn)(Args...)) {
  fn(zeroArgument<Args>()...);
}

void checkFunction(const char* name, ncclResult_t (*call)()) {
  if (flashcclRealFunction(name) != nullptr) {
    std::printf("fn:%s=found\n", name);
  } else {
    std::printf("fn:%s=missing,%d\n", name, static_cast<int>(call()));
  }
  std::fflush(stdout);
}

// NCCL 2.21's ncclConfig_t, as its nccl.h declares it (run_matrix.sh checks the size against
// that header): size, magic, version, blocking, cgaClusterSize, minCTAs, maxCTAs, netName,
// splitShare.
struct ConfigOf2_21 {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int blocking, cgaClusterSize, minCTAs, maxCTAs;
  const char* netName;
  int splitShare;
};

void checkOldConfig() {
  const long page = sysconf(_SC_PAGESIZE);
  char* pages = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (pages == MAP_FAILED || mprotect(pages + page, page, PROT_NONE) != 0) {
    std::printf("oldconfig=mmap-failed\n");
    return;
  }
  auto* old = reinterpret_cast<ConfigOf2_21*>(pages + page - sizeof(ConfigOf2_21));
  *old = ConfigOf2_21{sizeof(ConfigOf2_21), 0xcafebeef, NCCL_VERSION(2, 21, 5), 1,
                      NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT,
                      nullptr, NCCL_CONFIG_UNDEF_INT};
  ConfigOf2_21 before = *old;
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  ncclGetUniqueId(&id);
  ncclComm_t comm = nullptr;
  // No GPU here: NCCL fails the init; flashccl's own reading of the config happens either way.
  const ncclResult_t r =
      ncclCommInitRankConfig(&comm, 1, id, 0, reinterpret_cast<ncclConfig_t*>(old));
  std::printf("oldconfig=%d,%s\n", static_cast<int>(r),
              std::memcmp(&before, old, sizeof(before)) == 0 ? "untouched" : "changed");
  if (r == ncclSuccess && comm) ncclCommDestroy(comm);
}

}  // namespace

int main() {
  int version = 0;
  ncclResult_t r = ncclGetVersion(&version);
  std::printf("version=%d,%d\n", static_cast<int>(r), version);
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  r = ncclGetUniqueId(&id);
  int nonzero = 0;
  for (char c : id.internal) nonzero += c != 0;
  std::printf("uniqueid=%d,%s\n", static_cast<int>(r), nonzero ? "set" : "empty");
  std::fflush(stdout);

#define FCCL_CHECK_FUNCTION(name, params, args) \
  checkFunction(#name, [] { return callWithZeros(&name); });
  NCCL_RESULT_FUNCTIONS(FCCL_CHECK_FUNCTION)
#undef FCCL_CHECK_FUNCTION
#define FCCL_CHECK_OTHER(ret, name, params, args)   \
  if (flashcclRealFunction(#name) != nullptr) {     \
    std::printf("fn:%s=found\n", #name);            \
  } else {                                          \
    callOther(&name);                               \
    std::printf("fn:%s=missing,other\n", #name);    \
  }
  NCCL_OTHER_FUNCTIONS(FCCL_CHECK_OTHER)
#undef FCCL_CHECK_OTHER
  checkOldConfig();
  std::printf("done=1\n");
  return 0;
}
