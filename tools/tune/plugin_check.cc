#include "plugin_check.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstring>

namespace flashccl {
namespace tune {

std::vector<std::string> pluginSearchPaths(const std::string& executable, const std::string& ncclTunerPlugin) {
  std::vector<std::string> paths;
  if (ncclTunerPlugin.find('/') != std::string::npos) paths.push_back(ncclTunerPlugin);
  const size_t slash = executable.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : executable.substr(0, slash);
  paths.push_back(directory + "/../lib/" + kTunerPluginFile);
  paths.push_back(directory + "/../plugins/tuner/" + kTunerPluginFile);
  return paths;
}

std::string firstExistingFile(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    struct stat info;
    if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    char resolved[PATH_MAX];
    return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
  }
  return "";
}

bool checkTunerPlugin(const std::string& path, std::string* error) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    *error = "the tuner plugin " + path + " cannot be loaded: " + (why ? why : "dlopen failed");
    return false;
  }
  // Every ncclTunerPlugin_v* struct starts with the plugin's name.
  bool found = false;
  std::string name;
  for (const char* symbol : {"ncclTunerPlugin_v5", "ncclTunerPlugin_v4", "ncclTunerPlugin_v3", "ncclTunerPlugin_v2"}) {
    if (void* plugin = dlsym(handle, symbol)) {
      const char* const* nameField = static_cast<const char* const*>(plugin);
      name = *nameField ? *nameField : "";
      found = true;
      break;
    }
  }
  dlclose(handle);
  if (!found) {
    *error = path + " is not an NCCL tuner plugin (no ncclTunerPlugin_v5 ... v2)";
    return false;
  }
  if (name != "flashccl") {
    *error = path + " is the tuner plugin '" + name + "', not flashccl's (FLASHCCL_TUNER_FORCE would do nothing)";
    return false;
  }
  return true;
}

}  // namespace tune
}  // namespace flashccl
