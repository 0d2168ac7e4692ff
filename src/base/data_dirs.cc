#include "base/data_dirs.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

namespace flashccl {

namespace {

// The file this code was loaded from: libflashccl.so when preloaded, the `flashccl` executable
// for the tool, the test binary in tests.
std::string fileHoldingThisCode() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&fileHoldingThisCode), &info) != 0 && info.dli_fname &&
      info.dli_fname[0] != '\0') {
    char resolved[PATH_MAX];
    if (realpath(info.dli_fname, resolved)) return resolved;
  }
  // The main program is sometimes reported by the name it was started with; /proc knows better.
  char exe[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (length > 0) return std::string(exe, size_t(length));
  return "";
}

}  // namespace

bool isDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
}

std::string resolvedPath(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

std::vector<std::string> dataDirectories(const std::string& kind) {
  std::vector<std::string> dirs;
  const std::string holder = fileHoldingThisCode();
  const size_t slash = holder.rfind('/');
  if (slash != std::string::npos) dirs.push_back(holder.substr(0, slash) + "/../share/flashccl/" + kind);
#ifdef FLASHCCL_SOURCE_DATA_DIR
  // Set by src/CMakeLists.txt to the source tree.
  dirs.push_back(std::string(FLASHCCL_SOURCE_DATA_DIR) + "/" + kind);
#endif
  return dirs;
}

std::string userTableDir() {
  const char* cache = getenv("XDG_CACHE_HOME");
  if (cache && *cache == '/') return std::string(cache) + "/flashccl";  // XDG: a relative value is ignored
  const char* home = getenv("HOME");
  return home && *home ? std::string(home) + "/.cache/flashccl" : "";
}

std::vector<std::string> calibratedTableDirs(const std::string& tableDir) {
  std::vector<std::string> dirs;
  if (!tableDir.empty()) dirs.push_back(tableDir);
  const std::string user = userTableDir();
  if (!user.empty()) dirs.push_back(user);
  dirs.push_back("/etc/flashccl");
  return dirs;
}

}  // namespace flashccl
